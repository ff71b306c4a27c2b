! exchange.F90 - exchange.c from Fortran, for tests/exact-counts.test.
! One source, built twice: with "use mpi" by default, with "use mpi_f08"
! when PMON_F08 is defined.
!
!   exchange_mpi M N FILE      exchange_f08 M N FILE
!
! Ranks 0 and 1 exchange N messages of M bytes each way with MPI_Send and
! MPI_Recv, then every rank writes M bytes to FILE at offset rank x M with
! one MPI_File_write_at_all.  Rank 0 prints "exchange: M N large-count no".
! Exit status 0; 2 on bad usage.
program exchange
#ifdef PMON_F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
#ifdef PMON_F08
  type(MPI_File) :: fh
#else
  integer :: fh
#endif
  integer :: ierr, rank, nranks, m, n, i
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=4096) :: path
  character(len=32) :: arg
  integer(kind=1), allocatable :: buf(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (command_argument_count() /= 3 .or. nranks < 2) then
    if (rank == 0) write (*, '(a)') 'usage: exchange_mpi M N FILE (2 ranks or more)'
    call MPI_Finalize(ierr)
    stop 2
  end if
  call get_command_argument(1, arg)
  read (arg, *) m
  call get_command_argument(2, arg)
  read (arg, *) n
  call get_command_argument(3, path)
  allocate(buf(m))
  buf = int(rank, kind=1)
  do i = 1, n
    if (rank == 0) then
      call MPI_Send(buf, m, MPI_BYTE, 1, 1, MPI_COMM_WORLD, ierr)
      call MPI_Recv(buf, m, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else if (rank == 1) then
      call MPI_Recv(buf, m, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(buf, m, MPI_BYTE, 0, 1, MPI_COMM_WORLD, ierr)
    end if
  end do
  call MPI_File_open(MPI_COMM_WORLD, trim(path), &
                     MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  off = int(rank, kind=MPI_OFFSET_KIND) * m
  call MPI_File_write_at_all(fh, off, buf, m, MPI_BYTE, MPI_STATUS_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call MPI_File_close(fh, ierr)
  if (rank == 0) write (*, '(a,i0,a,i0,a)') 'exchange: ', m, ' ', n, ' large-count no'
  deallocate(buf)
  call MPI_Finalize(ierr)
end program exchange
