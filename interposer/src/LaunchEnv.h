// Which rank of which job this process is, from the environment its launcher set: torchrun
// (RANK, LOCAL_RANK, WORLD_SIZE, GROUP_RANK, TORCHELASTIC_RUN_ID), SLURM's srun (SLURM_PROCID,
// SLURM_LOCALID, SLURM_NTASKS, SLURM_NODEID, SLURM_JOB_ID), Open MPI's mpirun
// (OMPI_COMM_WORLD_*), MPICH/Hydra's PMI (PMI_RANK, PMI_SIZE, MPI_LOCALRANKID). torchrun's names
// win: a torchrun inside an srun allocation sets them for its own workers, which are the ranks
// the program's collectives use. Header-only: the recorder and its tests include it.
#pragma once
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "streamlint/LogFormat.h"

namespace sl::launch {

inline int envInt(const char* name) {
  const char* v = getenv(name);
  if (!v || !*v) return -1;
  char* end = nullptr;
  long n = strtol(v, &end, 10);
  return *end || n < 0 || n > 0x7fffffff ? -1 : int(n);
}

inline int firstInt(std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (int v = envInt(n); v >= 0) return v;
  return -1;
}

// Fills rank, localRank, worldSize, nodeRank, launcher and jobId of `h`.
inline void fillLaunch(slog::FileHeader& h) {
  using slog::Launcher;
  Launcher l = getenv("TORCHELASTIC_RUN_ID") || getenv("GROUP_RANK") ? Launcher::Torchrun
               : getenv("OMPI_COMM_WORLD_RANK")                      ? Launcher::OpenMpi
               : getenv("SLURM_PROCID") && getenv("SLURM_STEP_ID")   ? Launcher::Slurm
               : getenv("PMI_RANK")                                  ? Launcher::Pmi
                                                                     : Launcher::Unknown;
  h.launcher = uint32_t(l);
  h.rank = firstInt({"RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMI_RANK"});
  h.localRank = firstInt({"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"});
  h.worldSize = firstInt({"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "PMI_SIZE"});
  h.nodeRank = firstInt({"GROUP_RANK", "SLURM_NODEID", "OMPI_MCA_orte_ess_node_rank"});
  const char* job = getenv("TORCHELASTIC_RUN_ID");
  if (!job) job = getenv("SLURM_JOB_ID");
  if (!job) job = getenv("OMPI_MCA_ess_base_jobid");
  memset(h.jobId, 0, sizeof h.jobId);
  if (job) strncpy(h.jobId, job, sizeof h.jobId - 1);
}

}  // namespace sl::launch
