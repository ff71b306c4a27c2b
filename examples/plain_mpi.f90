! plain_mpi.f90 - a Fortran MPI program ("use mpi") that knows nothing of
! pmon; with pmon-run or LD_PRELOAD it gets the whole-job report.
program plain_mpi
  use mpi
  implicit none
  integer :: ierr, rank
  double precision :: t0, x
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  x = 0
  t0 = MPI_Wtime()
  do while (MPI_Wtime() - t0 < 0.5d0)
    x = x + 1d-9
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a)', 'plain_mpi: done'
  call MPI_Finalize(ierr)
end program plain_mpi
