/*
 * bar.c - a node run's bar terms (bar.h).
 */
#include "config.h"

#include "bar.h"

void pmon__run_terms(double res_j, double acc_rel, double acc_w, double em,
                     double covered_s, double start_j, double end_w,
                     const double err[3], double *lin, double *bound,
                     double *sq)
{
  *lin += res_j + acc_rel * fabs(em) + acc_w * covered_s;
  if (!isnan(end_w))
    *lin += start_j + end_w * err[2];
  *bound += err[0];
  *sq += err[1];
}
