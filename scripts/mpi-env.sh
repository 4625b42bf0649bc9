# Environment for running cyclocc under Open MPI on a workstation or in a
# container: source it (. scripts/mpi-env.sh).
#  - running as root is refused by Open MPI unless both variables say yes;
#  - more ranks than cores needs oversubscription;
#  - one BLAS thread per rank (the ranks are the parallelism);
#  - the single-copy mechanism fails in some containers ("Read -1, expected").
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OPENBLAS_NUM_THREADS=1
