! io_families.F90 - every MPI-IO family that reads or writes data, from
! Fortran, each on its own file, for the tests of the "io" section of the
! report.  Plain MPI.  One source, built twice: with "use mpi" by default
! (files "fmpi.F") and with "use mpi_f08" when PMON_F08 is defined (files
! "f08.F"), so that both can run in one directory.
!
!   io_families_mpi [-k] [K]      io_families_f08 [-k] [K]
!
! The contract is the one of io_families.c, family for family: for each
! family F the ranks open "PREFIX.F" collectively (MPI_MODE_CREATE +
! MPI_MODE_RDWR); rank r writes (r+1)*K elements (K = 1000 unless given)
! with the family write call into its own region of the file (after the
! regions of the ranks below it), reads them back with the matching read
! call, checks them and the file is closed.  One write and one read per
! rank and file; a non-blocking call is completed with MPI_Wait; a split
! collective is one _begin and one _end.  Only MPI_File_seek and
! MPI_File_seek_shared besides; at the end rank 0 deletes every file with
! MPI_File_delete after a barrier (-k keeps them).
!
!   ind            MPI_File_write / MPI_File_read (individual pointer)
!   all            MPI_File_write_all / _read_all
!   i              MPI_File_iwrite / _iread
!   i_all          MPI_File_iwrite_all / _iread_all
!   at             MPI_File_write_at / _read_at
!   at_all         MPI_File_write_at_all / _read_at_all
!   i_at           MPI_File_iwrite_at / _iread_at
!   i_at_all       MPI_File_iwrite_at_all / _iread_at_all
!   shared         MPI_File_write_shared / _read_shared (ranks in turn)
!   i_shared       MPI_File_iwrite_shared / _iread_shared (ranks in turn)
!   ordered        MPI_File_write_ordered / _read_ordered
!   all_split      MPI_File_write_all_begin/_end, _read_all_begin/_end
!   at_all_split   MPI_File_write_at_all_begin/_end, _read_at_all_begin/_end
!   ordered_split  MPI_File_write_ordered_begin/_end, _read_ordered_begin/_end
!
! The element type goes round MPI_INTEGER, MPI_DOUBLE_PRECISION and a
! derived type D = MPI_Type_vector(2, 1, 2, MPI_DOUBLE_PRECISION) (16
! bytes of data, extent 24: the hole is neither written nor read) in the
! order of the list: ind MPI_INTEGER, all MPI_DOUBLE_PRECISION, i D, i_all
! MPI_INTEGER, and so on (family number mod 3).
!
! Output (stdout, rank 0, nothing else): one line per file, in the order
! above,
!
!   NAME BYTES_WRITTEN BYTES_READ WRITES READS
!
! the job totals (MPI_Reduce over the ranks) of count x MPI_Type_size of
! the successful data calls the ranks made on the file, and the number of
! those calls (a split collective counts once, at _begin), counted where
! the calls are made, from their arguments.
!
! Exit status 0; 1 when some data read back was wrong (or the status gave
! another count); MPI_Abort (non-zero) on any MPI error; 2 on bad usage.
program io_families
#ifdef PMON_F08
  use mpi_f08
#else
  use mpi
#endif
  use, intrinsic :: iso_fortran_env, only: int64, error_unit, output_unit
  implicit none

#ifdef PMON_F08
#define FILE_T type(MPI_File)
#define STATUS_T type(MPI_Status)
#define REQUEST_T type(MPI_Request)
#define DATATYPE_T type(MPI_Datatype)
  character(len=*), parameter :: prefix = 'f08.'
#else
#define FILE_T integer
#define STATUS_T integer, dimension(MPI_STATUS_SIZE)
#define REQUEST_T integer
#define DATATYPE_T integer
  character(len=*), parameter :: prefix = 'fmpi.'
#endif

  integer, parameter :: nfam = 14
  integer, parameter :: f_ind = 0, f_all = 1, f_i = 2, f_i_all = 3, &
    f_at = 4, f_at_all = 5, f_i_at = 6, f_i_at_all = 7, f_shared = 8, &
    f_i_shared = 9, f_ordered = 10, f_all_split = 11, &
    f_at_all_split = 12, f_ordered_split = 13
  integer, parameter :: t_int = 0, t_double = 1, t_derived = 2
  character(len=13), parameter :: family_name(0:nfam-1) = [ &
    character(len=13) :: 'ind', 'all', 'i', 'i_all', 'at', 'at_all', &
    'i_at', 'i_at_all', 'shared', 'i_shared', 'ordered', 'all_split', &
    'at_all_split', 'ordered_split']

  integer :: rank, nranks, k, f, i, ierr, ios, mismatches, bad
  logical :: keep
  character(len=64) :: arg
  ! Per file: bytes written, bytes read, writes, reads (this rank).
  integer(int64) :: counts(4, 0:nfam-1), totals(4, 0:nfam-1)
  DATATYPE_T :: derived
  ! The buffers: MPI_INTEGER data in iw/ir, the others in dw/dr.
  integer, allocatable, asynchronous :: iw(:), ir(:)
  double precision, allocatable, asynchronous :: dw(:), dr(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  k = 1000
  keep = .false.
  do i = 1, command_argument_count()
    call get_command_argument(i, arg)
    if (arg == '-k') then
      keep = .true.
    else
      read (arg, *, iostat=ios) k
      if (ios /= 0 .or. k < 1 .or. k > 1000000) then
        if (rank == 0) write (error_unit, '(a)') &
          'usage: io_families [-k] [K]'
        call MPI_Finalize(ierr)
        stop 2
      end if
    end if
  end do

  counts = 0
  mismatches = 0
  call MPI_Type_vector(2, 1, 2, MPI_DOUBLE_PRECISION, derived, ierr)
  call MPI_Type_commit(derived, ierr)
  do f = 0, nfam - 1
    call one_family(f)
  end do
  call MPI_Type_free(derived, ierr)

  call MPI_Reduce(counts, totals, 4 * nfam, MPI_INTEGER8, MPI_SUM, 0, &
                  MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(mismatches, bad, 1, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    do f = 0, nfam - 1
      if (.not. keep) then
        call MPI_File_delete(prefix // trim(family_name(f)), MPI_INFO_NULL, &
                             ierr)
        call check(ierr, 'delete', f)
      end if
      write (output_unit, '(a,4(1x,i0))') prefix // trim(family_name(f)), &
        totals(:, f)
    end do
    flush (output_unit)
  end if
  call MPI_Finalize(ierr)
  if (bad /= 0) stop 1

contains

  subroutine check(rc, call_name, fam)
    integer, intent(in) :: rc, fam
    character(len=*), intent(in) :: call_name
    character(len=MPI_MAX_ERROR_STRING) :: msg
    integer :: length, e

    if (rc == MPI_SUCCESS) return
    call MPI_Error_string(rc, msg, length, e)
    write (error_unit, '(a,i0,5a)') 'io_families: rank ', rank, ': ', &
      call_name, ' on ', prefix // trim(family_name(fam)), ': ' // &
      msg(1:length)
    call MPI_Abort(MPI_COMM_WORLD, 3, e)
  end subroutine check

  ! Element j of rank r data in family fam, as an integer.
  integer function val(fam, r, j)
    integer, intent(in) :: fam, r, j
    val = int(mod(int(r, int64) * 7919 + int(j, int64) * 31 + fam, &
                  1000003_int64))
  end function val

  ! The data call of family fam (a write when w), n elements of dt at
  ! byte offset off for the families with an explicit offset; the request
  ! of a non-blocking call is completed here.  Counts the call and checks
  ! that the status says n elements.  Families 0, 3, 6, 9 and 12 move
  ! MPI_INTEGER data (iw, ir), the others dw, dr.
  subroutine data_call(fam, w, fh, off, n, dt)
    integer, intent(in) :: fam, n
    logical, intent(in) :: w
    FILE_T, intent(in) :: fh
    integer(MPI_OFFSET_KIND), intent(in) :: off
    DATATYPE_T, intent(in) :: dt
    STATUS_T :: st
    REQUEST_T :: req
    logical :: nonblocking
    integer :: rc, tsize, got, e
    character(len=8) :: what

    nonblocking = .false.
    what = merge('write', 'read ', w)
    select case (fam)
    case (f_ind)
      if (w) then
        call MPI_File_write(fh, iw, n, dt, st, rc)
      else
        call MPI_File_read(fh, ir, n, dt, st, rc)
      end if
    case (f_all)
      if (w) then
        call MPI_File_write_all(fh, dw, n, dt, st, rc)
      else
        call MPI_File_read_all(fh, dr, n, dt, st, rc)
      end if
    case (f_i)
      nonblocking = .true.
      if (w) then
        call MPI_File_iwrite(fh, dw, n, dt, req, rc)
      else
        call MPI_File_iread(fh, dr, n, dt, req, rc)
      end if
    case (f_i_all)
      nonblocking = .true.
      if (w) then
        call MPI_File_iwrite_all(fh, iw, n, dt, req, rc)
      else
        call MPI_File_iread_all(fh, ir, n, dt, req, rc)
      end if
    case (f_at)
      if (w) then
        call MPI_File_write_at(fh, off, dw, n, dt, st, rc)
      else
        call MPI_File_read_at(fh, off, dr, n, dt, st, rc)
      end if
    case (f_at_all)
      if (w) then
        call MPI_File_write_at_all(fh, off, dw, n, dt, st, rc)
      else
        call MPI_File_read_at_all(fh, off, dr, n, dt, st, rc)
      end if
    case (f_i_at)
      nonblocking = .true.
      if (w) then
        call MPI_File_iwrite_at(fh, off, iw, n, dt, req, rc)
      else
        call MPI_File_iread_at(fh, off, ir, n, dt, req, rc)
      end if
    case (f_i_at_all)
      nonblocking = .true.
      if (w) then
        call MPI_File_iwrite_at_all(fh, off, dw, n, dt, req, rc)
      else
        call MPI_File_iread_at_all(fh, off, dr, n, dt, req, rc)
      end if
    case (f_shared)
      if (w) then
        call MPI_File_write_shared(fh, dw, n, dt, st, rc)
      else
        call MPI_File_read_shared(fh, dr, n, dt, st, rc)
      end if
    case (f_i_shared)
      nonblocking = .true.
      if (w) then
        call MPI_File_iwrite_shared(fh, iw, n, dt, req, rc)
      else
        call MPI_File_iread_shared(fh, ir, n, dt, req, rc)
      end if
    case (f_ordered)
      if (w) then
        call MPI_File_write_ordered(fh, dw, n, dt, st, rc)
      else
        call MPI_File_read_ordered(fh, dr, n, dt, st, rc)
      end if
    case (f_all_split)
      if (w) then
        call MPI_File_write_all_begin(fh, dw, n, dt, rc)
        call check(rc, 'write_all_begin', fam)
        call MPI_File_write_all_end(fh, dw, st, rc)
      else
        call MPI_File_read_all_begin(fh, dr, n, dt, rc)
        call check(rc, 'read_all_begin', fam)
        call MPI_File_read_all_end(fh, dr, st, rc)
      end if
    case (f_at_all_split)
      if (w) then
        call MPI_File_write_at_all_begin(fh, off, iw, n, dt, rc)
        call check(rc, 'write_at_all_begin', fam)
        call MPI_File_write_at_all_end(fh, iw, st, rc)
      else
        call MPI_File_read_at_all_begin(fh, off, ir, n, dt, rc)
        call check(rc, 'read_at_all_begin', fam)
        call MPI_File_read_at_all_end(fh, ir, st, rc)
      end if
    case (f_ordered_split)
      if (w) then
        call MPI_File_write_ordered_begin(fh, dw, n, dt, rc)
        call check(rc, 'write_ordered_begin', fam)
        call MPI_File_write_ordered_end(fh, dw, st, rc)
      else
        call MPI_File_read_ordered_begin(fh, dr, n, dt, rc)
        call check(rc, 'read_ordered_begin', fam)
        call MPI_File_read_ordered_end(fh, dr, st, rc)
      end if
    case default
      error stop 4
    end select
    call check(rc, trim(what), fam)
    if (nonblocking) then
      call MPI_Wait(req, st, rc)
      call check(rc, 'MPI_Wait', fam)
    end if
    call MPI_Type_size(dt, tsize, e)
    if (w) then
      counts(1, fam) = counts(1, fam) + int(n, int64) * tsize
      counts(3, fam) = counts(3, fam) + 1
    else
      counts(2, fam) = counts(2, fam) + int(n, int64) * tsize
      counts(4, fam) = counts(4, fam) + 1
    end if
    call MPI_Get_count(st, dt, got, e)
    if (got /= n) then
      write (error_unit, '(a,i0,4a,i0,a,i0)') 'io_families: rank ', rank, &
        ': ', trim(what), ' on ', prefix // trim(family_name(fam)) // &
        ': status count ', got, ', expected ', n
      mismatches = mismatches + 1
    end if
  end subroutine data_call

  subroutine one_family(fam)
    integer, intent(in) :: fam
    integer :: kind, n, tsize, r, j
    integer(MPI_OFFSET_KIND) :: off
    DATATYPE_T :: dt
    FILE_T :: fh
    logical :: ok

    kind = mod(fam, 3)
    n = (rank + 1) * k
    select case (kind)
    case (t_int)
      dt = MPI_INTEGER
      allocate (iw(n), ir(n))
      do j = 1, n
        iw(j) = val(fam, rank, j - 1)
      end do
      ir = -1
    case (t_double)
      dt = MPI_DOUBLE_PRECISION
      allocate (dw(n), dr(n))
    case (t_derived)
      ! Three doubles of memory per element, the middle one a hole.
      dt = derived
      allocate (dw(3 * n), dr(3 * n))
    end select
    if (kind /= t_int) then
      do j = 1, size(dw)
        dw(j) = val(fam, rank, j - 1) + 0.5d0
      end do
      dr = -1
    end if
    call MPI_Type_size(dt, tsize, ierr)
    off = int(tsize, MPI_OFFSET_KIND) * k * rank * (rank + 1) / 2
    call MPI_File_open(MPI_COMM_WORLD, prefix // trim(family_name(fam)), &
                       MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, &
                       ierr)
    call check(ierr, 'open', fam)

    select case (fam)
    case (f_ind, f_all, f_i, f_i_all, f_all_split)
      call MPI_File_seek(fh, off, MPI_SEEK_SET, ierr)
      call check(ierr, 'seek', fam)
      call data_call(fam, .true., fh, off, n, dt)
      call MPI_File_seek(fh, off, MPI_SEEK_SET, ierr)
      call check(ierr, 'seek', fam)
      call data_call(fam, .false., fh, off, n, dt)
    case (f_at, f_at_all, f_i_at, f_i_at_all, f_at_all_split)
      call data_call(fam, .true., fh, off, n, dt)
      call data_call(fam, .false., fh, off, n, dt)
    case (f_shared, f_i_shared)
      ! The ranks in turn, so that rank r data lands after rank r-1 data.
      do r = 0, nranks - 1
        if (r == rank) call data_call(fam, .true., fh, off, n, dt)
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
      end do
      call MPI_File_seek_shared(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
      call check(ierr, 'seek_shared', fam)
      do r = 0, nranks - 1
        if (r == rank) call data_call(fam, .false., fh, off, n, dt)
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
      end do
    case (f_ordered, f_ordered_split)
      call data_call(fam, .true., fh, off, n, dt)
      call MPI_File_seek_shared(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
      call check(ierr, 'seek_shared', fam)
      call data_call(fam, .false., fh, off, n, dt)
    end select
    call MPI_File_close(fh, ierr)
    call check(ierr, 'close', fam)

    ! The data must be back, the holes of D untouched.
    ok = .false.
    select case (kind)
    case (t_int)
      ok = all(ir == iw)
      deallocate (iw, ir)
    case (t_double)
      ok = all(abs(dr - dw) < 0.25d0)
      deallocate (dw, dr)
    case (t_derived)
      ! The values are whole numbers + 0.5, the holes -1.
      ok = all(abs(dr(1::3) - dw(1::3)) < 0.25d0) .and. &
           all(abs(dr(2::3) + 1) < 0.25d0) .and. &
           all(abs(dr(3::3) - dw(3::3)) < 0.25d0)
      deallocate (dw, dr)
    end select
    if (.not. ok) then
      write (error_unit, '(a,i0,3a)') 'io_families: rank ', rank, ': ', &
        prefix // trim(family_name(fam)), ': wrong data'
      mismatches = mismatches + 1
    end if
  end subroutine one_family

end program io_families
