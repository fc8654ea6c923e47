include(${PROJECT_SOURCE_DIR}/tests/data/synthetic/scenarios.cmake)
# Tests of the report layer (`solscope report`'s figures, phases, kernel join, JSON and text): label `report`.
solscope_add_test(report
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/declared_phases_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/phase_detection_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/kernel_join_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/report_builder_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/report_output_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/report_series_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/sample_bins_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/training_steps_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/workload_report_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/data/synthetic/workloads.cpp
  LIBS solscope::report solscope_synthetic_scenarios)
