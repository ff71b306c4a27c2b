! comm_kernels.F90 - the communication kernels of comm_kernels.c from
! Fortran, for the tests of the communication wrappers.  One source, built
! twice: with "use mpi" by default, with "use mpi_f08" when PMON_F08 is
! defined.
!
!   comm_kernels_mpi M N      comm_kernels_f08 M N
!
! Ranks 0 and 1 exchange N messages of M bytes each way with MPI_Send and
! MPI_Recv, then N more each way with MPI_Isend, MPI_Irecv and MPI_Waitall;
! then every rank calls MPI_Allreduce N times on M bytes (MPI_BYTE,
! MPI_BOR).  Each rank prints what it moved, as comm_kernels does:
!   rank R CALL 0 BYTES
! Exit status 0; 2 on bad usage.
program comm_kernels
#ifdef PMON_F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
#ifdef PMON_F08
  type(MPI_Request) :: rq(2)
#else
  integer :: rq(2)
#endif
  integer :: ierr, rank, nranks, m, n, i, peer
  character(len=32) :: arg
  integer(kind=1), allocatable :: a(:), b(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (command_argument_count() /= 2) then
    if (rank == 0) write (*, '(a)') 'usage: comm_kernels_mpi M N'
    call MPI_Finalize(ierr)
    stop 2
  end if
  call get_command_argument(1, arg)
  read (arg, *) m
  call get_command_argument(2, arg)
  read (arg, *) n
  allocate (a(max(m, 1)), b(max(m, 1)))
  a = 1
  b = 0
  peer = 1 - rank
  if (rank < 2) then
    do i = 1, 2 * n
      if (mod(i + rank, 2) == 0) then
        call MPI_Send(a, m, MPI_BYTE, peer, 1, MPI_COMM_WORLD, ierr)
      else
        call MPI_Recv(b, m, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
      end if
    end do
    do i = 1, n
      call MPI_Irecv(b, m, MPI_BYTE, peer, 2, MPI_COMM_WORLD, rq(1), ierr)
      call MPI_Isend(a, m, MPI_BYTE, peer, 2, MPI_COMM_WORLD, rq(2), ierr)
      call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
    end do
    write (*, '(a,i0,a,i0)') 'rank ', rank, ' MPI_Send 0 ', n * m
    write (*, '(a,i0,a,i0)') 'rank ', rank, ' MPI_Recv 0 ', n * m
    write (*, '(a,i0,a,i0)') 'rank ', rank, ' MPI_Isend 0 ', n * m
    write (*, '(a,i0,a,i0)') 'rank ', rank, ' MPI_Irecv 0 ', n * m
  end if
  do i = 1, n
    call MPI_Allreduce(a, b, m, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD, ierr)
  end do
  write (*, '(a,i0,a,i0)') 'rank ', rank, ' MPI_Allreduce 0 ', 2 * n * m
  call MPI_Finalize(ierr)
end program comm_kernels
