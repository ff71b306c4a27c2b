/*
 * check_evidence.c - lib/evidence.c: the Slurm job's directory in a
 * /proc/PID/cgroup file (pmon__ev_slurm_dir()), for the layouts Slurm
 * makes: cgroup v2 under a slurmstepd scope (named job_ID, a SLUID, or
 * the scope of one of several slurmds), v2 without the scope, v1 under
 * the cpuacct controller; and what is no Slurm job.  A table, each row
 * with its line.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "evidence.h"

static const struct {
  int line;
  const char *text; /* the cgroup file */
  const char *dir;  /* the job's directory, NULL for none */
  int v1;
  const char *ctl;  /* v1: the controllers' directory */
} rows[] = {
  {__LINE__, "0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0\n",
   "/system.slice/slurmstepd.scope/job_42", 0, ""},
  /* a batch step; the job's own step directory */
  {__LINE__, "0::/system.slice/slurmstepd.scope/job_7/step_batch/user/task_0",
   "/system.slice/slurmstepd.scope/job_7", 0, ""},
  /* several slurmds on one host: NODE_slurmstepd.scope */
  {__LINE__, "0::/system.slice/n3_slurmstepd.scope/job_9/step_0/slurm\n",
   "/system.slice/n3_slurmstepd.scope/job_9", 0, ""},
  /* Slurm 26.05: the job's directory is its SLUID */
  {__LINE__, "0::/system.slice/slurmstepd.scope/s4QnZ1x2/step_0/user/task_0\n",
   "/system.slice/slurmstepd.scope/s4QnZ1x2", 0, ""},
  /* CgroupSlice moved elsewhere, the scope's name kept */
  {__LINE__, "0::/hpc.slice/slurmstepd.scope/job_5/step_1\n",
   "/hpc.slice/slurmstepd.scope/job_5", 0, ""},
  /* v2 without the scope: a component job_ID */
  {__LINE__, "0::/slurm/job_11/step_0\n", "/slurm/job_11", 0, ""},
  /* v1: the cpuacct controller's line, whatever comes before it */
  {__LINE__,
   "12:memory:/slurm/uid_1000/job_3/step_0/task_0\n"
   "4:cpu,cpuacct:/slurm/uid_1000/job_3/step_0/task_0\n"
   "1:name=systemd:/user.slice\n",
   "/slurm/uid_1000/job_3", 1, "cpu,cpuacct"},
  /* no Slurm job: a user's session, a scope's own "system", nothing */
  {__LINE__, "0::/user.slice/user-1000.slice/session-3.scope\n", NULL, 0, ""},
  {__LINE__, "0::/system.slice/slurmstepd.scope\n", NULL, 0, ""},
  {__LINE__, "0::/\n", NULL, 0, ""},
  {__LINE__, "", NULL, 0, ""},
  /* v1 without cpuacct is not read */
  {__LINE__, "5:memory:/slurm/uid_0/job_3/step_0\n", NULL, 0, ""},
  /* a component that only begins like one is no job */
  {__LINE__, "0::/jobs/job_/x\n", NULL, 0, ""},
};

START_TEST(test_rows)
{
  char dir[256] = "unset", ctl[64] = "unset";
  int v1 = -1, rc;

  rc = pmon__ev_slurm_dir(rows[_i].text, dir, sizeof dir, &v1, ctl,
                          sizeof ctl);
  if (rows[_i].dir == NULL) {
    ck_assert_msg(rc == -1, "line %d: a job found in \"%s\": %s",
                  rows[_i].line, rows[_i].text, dir);
    return;
  }
  ck_assert_msg(rc == 0, "line %d: no job found", rows[_i].line);
  ck_assert_msg(strcmp(dir, rows[_i].dir) == 0, "line %d: \"%s\", not \"%s\"",
                rows[_i].line, dir, rows[_i].dir);
  ck_assert_msg(v1 == rows[_i].v1, "line %d: v1 %d", rows[_i].line, v1);
  if (v1)
    ck_assert_msg(strcmp(ctl, rows[_i].ctl) == 0, "line %d: controllers "
                  "\"%s\"", rows[_i].line, ctl);
}
END_TEST

/* A directory that does not fit is none, never cut. */
START_TEST(test_small)
{
  char dir[16], ctl[4];
  int v1;

  ck_assert_int_eq(pmon__ev_slurm_dir("0::/system.slice/slurmstepd.scope/"
                                      "job_42/step_0\n",
                                      dir, sizeof dir, &v1, ctl, sizeof ctl),
                   -1);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("evidence");
  TCase *tc = tcase_create("slurm");
  SRunner *sr;
  int failed;

  tcase_add_loop_test(tc, test_rows, 0, (int)(sizeof rows / sizeof rows[0]));
  tcase_add_test(tc, test_small);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
