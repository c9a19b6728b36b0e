// The log header's launcher fields (issue 14): the recorder reads torchrun's, SLURM's and MPI's
// environment (interposer/src/LaunchEnv.h), and the reader still reads logs whose header predates
// them (384 bytes: world size and node rank unknown, the records after it intact).
#include <gtest/gtest.h>
#include <stdlib.h>

#include "../TempDir.h"
#include "LaunchEnv.h"
#include "LogBuilder.h"
#include "runtime/LogReader.h"

using namespace sl;
using namespace sl::runtime;

namespace {

const char* kLaunchVars[] = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "GROUP_RANK", "TORCHELASTIC_RUN_ID",
                             "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_NODEID", "SLURM_JOB_ID",
                             "SLURM_STEP_ID", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                             "OMPI_COMM_WORLD_SIZE", "OMPI_MCA_orte_ess_node_rank", "OMPI_MCA_ess_base_jobid",
                             "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"};

struct CleanEnv {
  CleanEnv() { for (const char* v : kLaunchVars) unsetenv(v); }
  ~CleanEnv() { for (const char* v : kLaunchVars) unsetenv(v); }
};

slog::FileHeader launched() {
  slog::FileHeader h{};
  launch::fillLaunch(h);
  return h;
}

}  // namespace

TEST(LogHeader, Torchrun) {
  CleanEnv env;
  setenv("RANK", "5", 1);
  setenv("LOCAL_RANK", "1", 1);
  setenv("WORLD_SIZE", "8", 1);
  setenv("GROUP_RANK", "2", 1);
  setenv("TORCHELASTIC_RUN_ID", "job42", 1);
  setenv("SLURM_PROCID", "2", 1);  // torchrun inside an srun allocation: torchrun's ranks win
  slog::FileHeader h = launched();
  EXPECT_EQ(h.rank, 5);
  EXPECT_EQ(h.localRank, 1);
  EXPECT_EQ(h.worldSize, 8);
  EXPECT_EQ(h.nodeRank, 2);
  EXPECT_EQ(slog::Launcher(h.launcher), slog::Launcher::Torchrun);
  EXPECT_STREQ(h.jobId, "job42");
}

TEST(LogHeader, SlurmAndOpenMpi) {
  CleanEnv env;
  setenv("SLURM_PROCID", "7", 1);
  setenv("SLURM_LOCALID", "3", 1);
  setenv("SLURM_NTASKS", "16", 1);
  setenv("SLURM_NODEID", "1", 1);
  setenv("SLURM_STEP_ID", "0", 1);
  setenv("SLURM_JOB_ID", "12345", 1);
  slog::FileHeader h = launched();
  EXPECT_EQ(slog::Launcher(h.launcher), slog::Launcher::Slurm);
  EXPECT_EQ(h.rank, 7);
  EXPECT_EQ(h.localRank, 3);
  EXPECT_EQ(h.worldSize, 16);
  EXPECT_EQ(h.nodeRank, 1);
  EXPECT_STREQ(h.jobId, "12345");

  CleanEnv mpi;
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  h = launched();
  EXPECT_EQ(slog::Launcher(h.launcher), slog::Launcher::OpenMpi);
  EXPECT_EQ(h.rank, 3);
  EXPECT_EQ(h.worldSize, 4);
  EXPECT_EQ(h.localRank, -1);
}

TEST(LogHeader, NoLauncherAndBadValues) {
  CleanEnv env;
  setenv("RANK", "x1", 1);
  slog::FileHeader h = launched();
  EXPECT_EQ(slog::Launcher(h.launcher), slog::Launcher::Unknown);
  EXPECT_EQ(h.rank, -1);
  EXPECT_EQ(h.worldSize, -1);
  EXPECT_STREQ(h.jobId, "");
}

// A log as the recorder wrote it before the launcher fields: a 384-byte header, then a chunk.
TEST(LogHeader, ReadsTheFirstHeaderLayout) {
  test::SlogFile f;
  slog::FileHeader h;
  std::memcpy(&h, f.bytes.data(), sizeof h);
  h.headerBytes = slog::kFirstHeaderBytes;
  h.rank = 3;
  f.bytes.assign(reinterpret_cast<const char*>(&h), slog::kFirstHeaderBytes);
  slog::ClockRecord c{{slog::RecType::Clock, sizeof c}, 0, 9, 10};
  f.chunk(100, c);
  TempDir dir("first_header");
  std::string path = dir.write("old.slog", "");
  f.write(path);
  ProcessLog log;
  std::string error;
  ASSERT_TRUE(readLog(path, log, error)) << error;
  EXPECT_EQ(log.header.rank, 3);
  EXPECT_EQ(log.header.worldSize, -1);
  EXPECT_EQ(log.header.nodeRank, -1);
  EXPECT_EQ(log.header.launcher, 0u);
  ASSERT_EQ(log.clocks.size(), 1u);  // the chunk after the short header was read
  EXPECT_EQ(log.clocks[0].cuptiNs, 9u);
  EXPECT_TRUE(log.problems.size() == 1 && log.problems[0].find("no trailer") != std::string::npos)
      << (log.problems.empty() ? "" : log.problems[0]);
}

TEST(LogHeader, ReadsTheLauncherFields) {
  test::SlogFile f;
  slog::FileHeader h;
  std::memcpy(&h, f.bytes.data(), sizeof h);
  h.worldSize = 8;
  h.launcher = uint32_t(slog::Launcher::Torchrun);
  f.bytes.assign(reinterpret_cast<const char*>(&h), sizeof h);
  TempDir dir("new_header");
  std::string path = dir.write("new.slog", "");
  f.write(path);
  ProcessLog log;
  std::string error;
  ASSERT_TRUE(readLog(path, log, error)) << error;
  EXPECT_EQ(log.header.worldSize, 8);
  EXPECT_EQ(slog::Launcher(log.header.launcher), slog::Launcher::Torchrun);
}
