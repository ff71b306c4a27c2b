! fortran_regions.f90 - "use pmon" from Fortran, with and without ierr.
program fortran_regions
  use mpi
  use pmon
  implicit none
  integer :: ierr, rank, i
  double precision :: x, e, t
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call pmon_init(ierr)
  if (ierr /= 0) stop 1
  x = 0
  do i = 1, 3
    call pmon_region_begin("fsolve", ierr)
    if (ierr /= 0) stop 2
    x = x + sqrt(dble(i))
    call pmon_region_end("fsolve     ")
  end do
  call pmon_region_end("not open", ierr)
  if (ierr == 0) stop 3
  call pmon_read(e, t, ierr)
  call pmon_finalize()
  if (rank == 0) print '(a, f8.3)', 'fortran_regions: ', x
  call MPI_Finalize(ierr)
end program fortran_regions
