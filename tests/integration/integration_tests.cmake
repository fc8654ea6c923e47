# Integration tests (label `integration`): `solscope serve` over replayed SYNTHETIC traces, checked with the real
# tools (promtool, the Prometheus server, headless Chromium through playwright-core), plus the ship files in
# deploy/. Python 3 (standard library) and Node scripts; no GPU. A test skips (exit 77) only when a tool is not
# installed; scripts/setup.sh installs them all.
set(solscope_it_dir ${CMAKE_CURRENT_LIST_DIR})
set(solscope_it_out ${CMAKE_CURRENT_BINARY_DIR}/integration)
find_program(SOLSCOPE_PYTHON3 python3)
find_program(SOLSCOPE_NODE node)

# solscope_integration_test(NAME <name> TIMEOUT <s> COMMAND ...): one ctest with the integration label.
function(solscope_integration_test)
  cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "COMMAND" ${ARGN})
  add_test(NAME integration.${ARG_NAME} COMMAND ${ARG_COMMAND} WORKING_DIRECTORY ${solscope_it_dir})
  # RUN_SERIAL: the HTTP latency and real-time replay checks must not share the 2 cores with other tests.
  # PYTHONDONTWRITEBYTECODE: no __pycache__ in the source tree.
  set_tests_properties(integration.${ARG_NAME} PROPERTIES LABELS integration SKIP_RETURN_CODE 77
                       TIMEOUT ${ARG_TIMEOUT} RUN_SERIAL TRUE
                       ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;SOLSCOPE_MAKE_TRACE=$<TARGET_FILE:solscope_make_synthetic_trace>")
endfunction()

if(NOT SOLSCOPE_PYTHON3)
  message(WARNING "solscope: python3 not found: the integration tests are not registered")
  return()
endif()

solscope_integration_test(NAME deploy TIMEOUT 60
  COMMAND ${SOLSCOPE_PYTHON3} ${solscope_it_dir}/deploy_test.py)
solscope_integration_test(NAME metrics_c_locale TIMEOUT 120
  COMMAND ${SOLSCOPE_PYTHON3} ${solscope_it_dir}/metrics_test.py --solscope $<TARGET_FILE:solscope>
          --locale C --workdir ${solscope_it_out}/metrics_c)
solscope_integration_test(NAME metrics_de_locale TIMEOUT 120
  COMMAND ${SOLSCOPE_PYTHON3} ${solscope_it_dir}/metrics_test.py --solscope $<TARGET_FILE:solscope>
          --locale de_DE.UTF-8 --workdir ${solscope_it_out}/metrics_de)
solscope_integration_test(NAME prometheus_scrape TIMEOUT 180
  COMMAND ${SOLSCOPE_PYTHON3} ${solscope_it_dir}/prometheus_test.py --solscope $<TARGET_FILE:solscope>
          --workdir ${solscope_it_out}/prometheus)
solscope_integration_test(NAME fleet_prometheus TIMEOUT 120
  COMMAND ${SOLSCOPE_PYTHON3} ${solscope_it_dir}/fleet_test.py --solscope $<TARGET_FILE:solscope>
          --workdir ${solscope_it_out}/fleet)
solscope_integration_test(NAME fleet_tui_tmux TIMEOUT 120
  COMMAND ${SOLSCOPE_PYTHON3} ${solscope_it_dir}/fleet_tui_test.py --solscope $<TARGET_FILE:solscope>
          --workdir ${solscope_it_out}/fleet_tui)
if(SOLSCOPE_NODE)
  # The browser tests save screenshots under the build tree, so a test run never edits the checkout; to refresh
  # the ones the docs show, copy them from build/<preset>/integration/screenshots to docs/screenshots.
  solscope_integration_test(NAME dashboard_browser TIMEOUT 180
    COMMAND ${SOLSCOPE_NODE} ${solscope_it_dir}/dashboard_test.mjs --solscope $<TARGET_FILE:solscope>
            --workdir ${solscope_it_out}/dashboard
            --screenshot ${solscope_it_out}/screenshots/dashboard.png
            --workload-server $<TARGET_FILE:solscope_workload_dashboard_server>)
  solscope_integration_test(NAME report_html_browser TIMEOUT 120
    COMMAND ${SOLSCOPE_NODE} ${solscope_it_dir}/report_html_test.mjs --solscope $<TARGET_FILE:solscope>
            --workdir ${solscope_it_out}/report_html
            --screenshot ${solscope_it_out}/screenshots/report.png)
  # `ceiling --serve --sweep --html`: both charts of the capacity page, drawn from the page's own data.
  solscope_integration_test(NAME ceiling_sweep_html_browser TIMEOUT 120
    COMMAND ${SOLSCOPE_NODE} ${solscope_it_dir}/ceiling_sweep_html_test.mjs --solscope $<TARGET_FILE:solscope>
            --workdir ${solscope_it_out}/ceiling_sweep_html)
  # The fleet view of serve --prometheus against the real Prometheus, backfilled by promtool (SYNTHETIC fixture).
  solscope_integration_test(NAME fleet_browser TIMEOUT 180
    COMMAND ${SOLSCOPE_NODE} ${solscope_it_dir}/fleet_web_test.mjs --solscope $<TARGET_FILE:solscope>
            --workdir ${solscope_it_out}/fleet_web
            --screenshot ${solscope_it_out}/screenshots/fleet.png)
else()
  solscope_integration_test(NAME dashboard_browser TIMEOUT 10
    COMMAND ${SOLSCOPE_PYTHON3} -c "print('SKIP: node is not installed'); raise SystemExit(77)")
  solscope_integration_test(NAME report_html_browser TIMEOUT 10
    COMMAND ${SOLSCOPE_PYTHON3} -c "print('SKIP: node is not installed'); raise SystemExit(77)")
  solscope_integration_test(NAME ceiling_sweep_html_browser TIMEOUT 10
    COMMAND ${SOLSCOPE_PYTHON3} -c "print('SKIP: node is not installed'); raise SystemExit(77)")
  solscope_integration_test(NAME fleet_browser TIMEOUT 10
    COMMAND ${SOLSCOPE_PYTHON3} -c "print('SKIP: node is not installed'); raise SystemExit(77)")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/gpu_proof_tests.cmake)
