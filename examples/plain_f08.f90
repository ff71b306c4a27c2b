! plain_f08.f90 - a Fortran MPI program ("use mpi_f08") that knows nothing
! of pmon; with pmon-run or LD_PRELOAD it gets the whole-job report.
program plain_f08
  use mpi_f08
  implicit none
  integer :: rank
  double precision :: t0, x
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  x = 0
  t0 = MPI_Wtime()
  do while (MPI_Wtime() - t0 < 0.5d0)
    x = x + 1d-9
  end do
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'plain_f08: done'
  call MPI_Finalize()
end program plain_f08
