! pmon.F90 - the Fortran interface to pmon: "use pmon".
!
! Subroutines pmon_init, pmon_finalize, pmon_region_begin(name) and
! pmon_region_end(name), and pmon_read(energy_j, time_s), each with an
! optional integer ierr last, as in mpi_f08: 0 on success, else a negative
! pmon error code (pmon_strerror(3)).  Trailing blanks of a region name are
! not part of it.  Link with -lpmonf -lpmon.
module pmon
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_double, c_null_char
  implicit none
  private
  public :: pmon_init, pmon_finalize, pmon_region_begin, pmon_region_end
  public :: pmon_read

  integer, parameter, public :: PMON_OK = 0

  interface
    function c_init() bind(C, name='pmon_init') result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function c_init
    function c_finalize() bind(C, name='pmon_finalize') result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function c_finalize
    function c_begin(name) bind(C, name='pmon_region_begin') result(rc)
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int) :: rc
    end function c_begin
    function c_end(name) bind(C, name='pmon_region_end') result(rc)
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int) :: rc
    end function c_end
    function c_read(e, t) bind(C, name='pmon_read') result(rc)
      import :: c_int, c_double
      real(c_double), intent(out) :: e, t
      integer(c_int) :: rc
    end function c_read
  end interface

contains

  subroutine pmon_init(ierr)
    integer, intent(out), optional :: ierr
    integer :: rc
    rc = c_init()
    if (present(ierr)) ierr = rc
  end subroutine pmon_init

  subroutine pmon_finalize(ierr)
    integer, intent(out), optional :: ierr
    integer :: rc
    rc = c_finalize()
    if (present(ierr)) ierr = rc
  end subroutine pmon_finalize

  subroutine pmon_region_begin(name, ierr)
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: ierr
    integer :: rc
    rc = c_begin(trim(name) // c_null_char)
    if (present(ierr)) ierr = rc
  end subroutine pmon_region_begin

  subroutine pmon_region_end(name, ierr)
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: ierr
    integer :: rc
    rc = c_end(trim(name) // c_null_char)
    if (present(ierr)) ierr = rc
  end subroutine pmon_region_end

  subroutine pmon_read(energy_j, time_s, ierr)
    double precision, intent(out) :: energy_j, time_s
    integer, intent(out), optional :: ierr
    integer :: rc
    real(c_double) :: e, t
    e = 0
    t = 0
    rc = c_read(e, t)
    energy_j = e
    time_s = t
    if (present(ierr)) ierr = rc
  end subroutine pmon_read

end module pmon
