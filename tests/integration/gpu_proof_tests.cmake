# The GPU proof kit (scripts/gpu-proof.sh, docs/gpu-proof.md) without a GPU: the kit with no driver (every GPU step
# SKIP, exit 0 in under 60 s, packed within its limits), its Python scripts compiled and self-tested, and its GPU
# path against the stand-ins in gpu_proof_fake/. Included by integration_tests.cmake.
solscope_integration_test(NAME gpu_proof_no_gpu TIMEOUT 120
  COMMAND ${SOLSCOPE_PYTHON3} ${solscope_it_dir}/gpu_proof_test.py --solscope $<TARGET_FILE:solscope>
          --workdir ${solscope_it_out}/gpu_proof)
