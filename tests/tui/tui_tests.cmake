# Terminal view tests: pure units (layout invariants, frame, widgets, charts, views, keys), the curses backend
# on a file, and an end-to-end run of the solscope binary under tmux (tests/tui/tui_e2e.sh).
include(${PROJECT_SOURCE_DIR}/tests/data/synthetic/synthetic.cmake)
solscope_add_test(tui
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/layout_test.cpp ${CMAKE_CURRENT_LIST_DIR}/frame_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/ui_state_test.cpp ${CMAKE_CURRENT_LIST_DIR}/views_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/terminal_test.cpp ${CMAKE_CURRENT_LIST_DIR}/fleet_view_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/workload_view_test.cpp ${CMAKE_CURRENT_LIST_DIR}/iteration_view_test.cpp
  LIBS solscope::tui)
if(SOLSCOPE_THOROUGH_TESTS)
  target_compile_definitions(solscope_tui_test PRIVATE SOLSCOPE_THOROUGH_TESTS=1)
endif()

if(TARGET solscope)
  find_program(SOLSCOPE_TMUX tmux)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(SOLSCOPE_TMUX AND Python3_Interpreter_FOUND)
    add_test(NAME tui.e2e_tmux
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/tui_e2e.py
                     --solscope $<TARGET_FILE:solscope>
                     --make-trace $<TARGET_FILE:solscope_make_synthetic_trace>
                     --demo ${PROJECT_SOURCE_DIR}/tests/data/demo-trace.sqlite)
    set_tests_properties(tui.e2e_tmux PROPERTIES LABELS tui TIMEOUT 180)
    # The terminal view driven by the live dcgm-exporter source (a local server replaying SYNTHETIC scrapes).
    add_test(NAME tui.dcgm_exporter_tmux
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/tui_dcgm_e2e.py --solscope $<TARGET_FILE:solscope>)
    set_tests_properties(tui.dcgm_exporter_tmux PROPERTIES LABELS "tui;dcgm" TIMEOUT 120)
  else()
    message(STATUS "solscope: tmux or python3 missing: the terminal view's end-to-end test is skipped")
  endif()
endif()
