# App tests: units (engine, options, text view) and end-to-end runs of the solscope binary.
if(TARGET solscope_app)
  solscope_add_test(app
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/engine_test.cpp ${CMAKE_CURRENT_LIST_DIR}/options_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/text_view_test.cpp ${CMAKE_CURRENT_LIST_DIR}/cli_e2e_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/attainable_sol_test.cpp ${CMAKE_CURRENT_LIST_DIR}/workloads_option_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/attainable_layout_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/workloads_cli_test.cpp ${CMAKE_CURRENT_LIST_DIR}/ceiling_command_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/ceiling_parallel_cli_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/ceiling_serve_test.cpp ${CMAKE_CURRENT_LIST_DIR}/ceiling_dtypes_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/ceiling_capacity_cli_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/serve_e2e_test.cpp ${CMAKE_CURRENT_LIST_DIR}/config_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/fleet_workloads_cli_test.cpp ${CMAKE_CURRENT_LIST_DIR}/fleet_iterations_cli_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/live_feed_test.cpp ${CMAKE_CURRENT_LIST_DIR}/sink_worker_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/engine_driver_test.cpp ${CMAKE_CURRENT_LIST_DIR}/workload_recording_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/trace_output_cli_test.cpp ${CMAKE_CURRENT_LIST_DIR}/source_capabilities_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/process_refresh_test.cpp ${CMAKE_CURRENT_LIST_DIR}/workload_e2e_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/workload_refresh_options_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/foreign_text_cli_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/output_checks_cli_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/check/check_run_test.cpp ${CMAKE_CURRENT_LIST_DIR}/check/phase_means_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/check/check_cli_test.cpp ${CMAKE_CURRENT_LIST_DIR}/check/sample_collector_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/report_html_test.cpp ${CMAKE_CURRENT_LIST_DIR}/report_cli_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/training_steps_cli_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/run_cli_test.cpp ${CMAKE_CURRENT_LIST_DIR}/run_job_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/run_markers_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/run_hooks_test.cpp ${CMAKE_CURRENT_LIST_DIR}/man_page_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/model_config_file_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/dcgm_exporter_cli_test.cpp ${CMAKE_CURRENT_LIST_DIR}/dcgm_suggestion_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/stop_cli_test.cpp ${CMAKE_CURRENT_LIST_DIR}/profile_cli_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/pm_yield_step_test.cpp ${CMAKE_CURRENT_LIST_DIR}/pm_yield_serve_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/../support/process.cpp
    LIBS solscope_app solscope_podresources_proto solscope_httplib Threads::Threads CLI11::CLI11 nlohmann_json::nlohmann_json
         SQLite::SQLite3 fmt::fmt)
  target_compile_definitions(solscope_app_test PRIVATE SOLSCOPE_BINARY="$<TARGET_FILE:solscope>"
                             SOLSCOPE_MAKE_TRACE="$<TARGET_FILE:solscope_make_synthetic_trace>")
  add_dependencies(solscope_app_test solscope solscope_make_synthetic_trace)
  if(TARGET solscope_inject)  # `solscope run`'s kernel log test runs the binary with the library beside it
    add_dependencies(solscope_app_test solscope_inject)
  endif()
endif()


# App tests over the synthetic NVML (they need the NVIDIA source and its fake): `solscope devices` on its MIG
# layouts, and automatic yielding end to end through serve's wiring over the real NVIDIA source.
if(TARGET solscope_app AND TARGET solscope_nvidia)
  solscope_add_test(app_mig
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/devices_mig_test.cpp ${CMAKE_CURRENT_LIST_DIR}/mig_metrics_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/pm_yield_nvidia_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/../support/fake_nvml.cpp
            ${CMAKE_CURRENT_LIST_DIR}/../support/fake_nvml_mig.cpp
            ${CMAKE_CURRENT_LIST_DIR}/../support/fake_nvml_processes.cpp
    LIBS solscope_app solscope::nvidia solscope_httplib nlohmann_json::nlohmann_json)
endif()
