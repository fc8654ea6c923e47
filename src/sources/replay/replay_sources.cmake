# solscope_replay: TraceReplaySource, a CounterSource over a recorded trace.
solscope_add_library(replay SOURCES trace_replay_source.cpp PUBLIC solscope::sources solscope::trace)
