/*
 * meters-hint.c - pmon-meters(1): why a meter cannot be used, and what an
 * administrator can do about it, drawn from the driver's one-line reason
 * (its errno text, its words) and the file or host it names.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmon.h"
#include "pmon-meters.h"

enum trouble {
  TR_OTHER,
  TR_CONFIG, /* the specification or the site file is wrong */
  TR_NAMED,  /* an external driver: auto has no address to try */
  TR_PERM,   /* EACCES, EPERM */
  TR_CRED,   /* the device refused the credentials */
  TR_BUSY,   /* another process holds the device */
  TR_NOTDEV, /* not the kind of device the driver reads */
  TR_ABSENT, /* ENOENT, ENODEV, ENXIO, HTTP 404 */
  TR_SILENT, /* a device on a line that does not answer */
  TR_NET,    /* a host that cannot be reached or does not answer */
  TR_FORMAT  /* the device answered something unexpected */
};

int meters_has(const char *msg, const char *what)
{
  return strstr(msg, what) != NULL;
}

static int has_errno(const char *msg, int e)
{
  return meters_has(msg, strerror(e));
}

/* Whether SPEC names a device of this node by its path (a serial line)
 * rather than a host. */
static int local_device(const struct pmon_spec *spec)
{
  return spec->path[0] == '/' && spec->path[1] != '/';
}

/*
 * The kind of trouble behind a driver's error RC with message MSG for
 * SPEC.  Drivers return PMON_E* codes and put strerror(3) text or the
 * device's own words in their message; this reads both, in the C locale
 * the program runs in.
 */
static enum trouble classify(int rc, const char *msg,
                             const struct pmon_spec *spec)
{
  if (rc == PMON_ECONFIG)
    return TR_CONFIG;
  if (meters_has(msg, "not probed") || meters_has(msg, "not detected") ||
      meters_has(msg, "no BMC named"))
    return TR_NAMED;
  if (has_errno(msg, EACCES) || has_errno(msg, EPERM))
    return TR_PERM;
  if (meters_has(msg, "credentials") || meters_has(msg, "authorizationError") ||
      meters_has(msg, "Authentication failure") || meters_has(msg, "Unknown user name") ||
      meters_has(msg, "HTTP 401") || meters_has(msg, "HTTP 403"))
    return TR_CRED;
  if (meters_has(msg, "in use by another process") || has_errno(msg, EBUSY))
    return TR_BUSY;
  if (meters_has(msg, "not a serial line") || has_errno(msg, ENOTTY) ||
      meters_has(msg, "*IDN? answered"))
    return TR_NOTDEV;
  if (has_errno(msg, ENOENT) || has_errno(msg, ENODEV) ||
      has_errno(msg, ENXIO) || meters_has(msg, "HTTP 404"))
    return TR_ABSENT;
  if (local_device(spec) && (meters_has(msg, "no answer") || meters_has(msg, "hung up") ||
                             meters_has(msg, "flow control")))
    return TR_SILENT;
  if (meters_has(msg, "no answer") || meters_has(msg, "unreachable") ||
      meters_has(msg, "timed out") || meters_has(msg, "Timeout") ||
      has_errno(msg, ECONNREFUSED) || has_errno(msg, EHOSTUNREACH) ||
      has_errno(msg, ENETUNREACH) || has_errno(msg, ETIMEDOUT) ||
      meters_has(msg, "Couldn't connect") || meters_has(msg, "Could not resolve") ||
      meters_has(msg, "SNMP session") || meters_has(msg, "Unknown host"))
    return TR_NET;
  if (rc == PMON_EFORMAT)
    return TR_FORMAT;
  return TR_OTHER;
}

/*
 * The file a message is about: what follows "pmon: DRIVER: " up to the
 * next ": ", when it is an absolute path; "" when there is none.
 */
static void path_in(const char *msg, char *buf, size_t size)
{
  const char *p = msg, *q;

  buf[0] = '\0';
  if (strncmp(p, "pmon: ", 6) == 0)
    p += 6;
  if ((q = strstr(p, ": ")) == NULL)
    return;
  p = q + 2;
  if (*p != '/')
    return;
  q = strstr(p, ": ");
  snprintf(buf, size, "%.*s", q != NULL ? (int)(q - p) : (int)strlen(p), p);
}

/* The HOST[:PORT] of a specification whose path is //HOST[:PORT]/... (the
 * path holds no user information: pmon__spec_parse() took it out). */
static void host_in(const struct pmon_spec *spec, char *buf, size_t size)
{
  const char *p = spec->path;

  buf[0] = '\0';
  if (strncmp(p, "//", 2) == 0)
    snprintf(buf, size, "%.*s", (int)strcspn(p + 2, "/?#"), p + 2);
}

static const char *user_name(char *buf, size_t size)
{
  struct passwd *pw = getpwuid(geteuid());

  if (pw != NULL)
    snprintf(buf, size, "%s", pw->pw_name);
  else
    snprintf(buf, size, "uid %u", (unsigned)geteuid());
  return buf;
}

static int in_group(gid_t gid)
{
  gid_t groups[256];
  int n = getgroups(256, groups);

  if (gid == getegid())
    return 1;
  for (int i = 0; i < n; i++)
    if (groups[i] == gid)
      return 1;
  return 0;
}

/* The hint for a file or device PATH this user may not open. */
static void hint_perm(const char *path)
{
  char user[64], owner[64], group[64];
  struct passwd *pw;
  struct group *gr;
  struct stat st;

  user_name(user, sizeof user);
  if (path[0] == '\0' || stat(path, &st) != 0) {
    meters_wrapf("fix:", "this user (%s) may not open the device. An administrator "
          "can give the users read access to it (a group they share, or "
          "for a device node a udev rule), or the measurement can run as a "
          "user who may read it.", user);
    return;
  }
  pw = getpwuid(st.st_uid);
  snprintf(owner, sizeof owner, "%s", pw != NULL ? pw->pw_name : "?");
  gr = getgrgid(st.st_gid);
  if (gr != NULL)
    snprintf(group, sizeof group, "%s", gr->gr_name);
  else
    snprintf(group, sizeof group, "%u", (unsigned)st.st_gid);
  if (in_group(st.st_gid) && (st.st_mode & S_IRGRP)) {
    meters_wrapf("fix:", "%s (owner %s, group %s, mode %04o) is readable by this "
          "user (%s) itself: a directory above it is not. An administrator "
          "can give the users search access (x) to the directories on the "
          "way, or the measurement can run as a user who may read it.",
          path, owner, group, (unsigned)(st.st_mode & 07777), user);
    return;
  }
  {
    const char *grp = strcmp(group, "root") == 0 ? "pmon" : group;
    const char *base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1
                                                  : path;
    char how[1024], keep[512] = "";

    if (!in_group(st.st_gid) && strcmp(group, "root") != 0 &&
        (st.st_mode & S_IRGRP))
      snprintf(how, sizeof how, "add the users to group %s (usermod -aG %s "
               "%s)", group, group, user);
    else
      snprintf(how, sizeof how, "give it a group of the users who may read "
               "it (chgrp %s %s; chmod g+r %s)", grp, path, path);
    if (strncmp(path, "/dev/", 5) == 0)
      snprintf(keep, sizeof keep, " A device node keeps such settings only "
               "through a udev rule, for example\n"
               "  KERNEL==\"%s\", GROUP=\"%s\", MODE=\"0640\"\n", base,
               grp);
    else if (strncmp(path, "/sys/", 5) == 0)
      snprintf(keep, sizeof keep, " A sysfs file loses them at boot: set "
               "them from a udev rule or a tmpfiles.d(5) line, for "
               "example\n  z %s 0640 root %s\n", path, grp);
    meters_wrapf("fix:", "%s is owner %s, group %s, mode %04o; this user (%s) may "
          "not read it. An administrator can %s.%s Or the measurement can "
          "run as a user who may read it.", path, owner, group,
          (unsigned)(st.st_mode & 07777), user, how, keep);
  }
}

/* The hint for a PATH that does not exist (or "HTTP 404", or "") for the
 * meter SPEC from SOURCE. */
static void hint_absent(const char *path, const struct pmon_spec *spec,
                        enum source source)
{
  char dir[PATH_MAX];
  struct stat st;
  char *slash;

  if (strcmp(spec->driver, "pm_counters") == 0 && source == SRC_AUTO) {
    meters_wrapf("fix:", "this node publishes no pm_counters: it is not a Cray XC "
          "or HPE Cray EX compute node (they are under %s/cray/pm_counters "
          "there), or PMON_SYSFS_ROOT points to the wrong place. Other "
          "meters are named in the site file or PMON_METERS.",
          pmon__sysfs_root());
    return;
  }
  if (strcmp(spec->driver, "nvml") == 0) {
    meters_wrapf("fix:", "no NVIDIA driver library where the dynamic linker looks: "
          "this is not a GPU node, or (in a container, a module "
          "environment) the driver's libnvidia-ml.so.1 is not visible: "
          "bind-mount it, add its directory to LD_LIBRARY_PATH, or name it "
          "with nvml?lib=PATH (pmon-driver-nvml(7)).");
    return;
  }
  if (strcmp(spec->driver, "rapl") == 0) {
    meters_wrapf("fix:", "this node shows no RAPL (the message says what each way "
          "found): not an Intel or AMD processor with RAPL, a virtual "
          "machine that hides it, or a kernel without intel_rapl and the "
          "perf power PMU. As root, modprobe msr gives the MSRs "
          "(pmon-driver-rapl(7)).");
    return;
  }
  if (strcmp(spec->driver, "hwmon") == 0) {
    meters_wrapf("fix:", "no hwmon chip of that kind under %s/class/hwmon: the "
          "chip's kernel module (acpi_power_meter, amd_energy, ...) is not "
          "loaded, or the node has no such meter (pmon-driver-hwmon(7)).",
          pmon__sysfs_root());
    return;
  }
  if (meters_has(path, "HTTP 404") || path[0] == '\0') {
    meters_wrapf("fix:", "the device has no such resource or path: check the "
          "specification against pmon-driver-%s(7), and that the device "
          "named is this node's.", spec->driver);
    return;
  }
  snprintf(dir, sizeof dir, "%s", path);
  while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
    *slash = '\0';
    if (stat(dir, &st) == 0)
      break;
  }
  if (slash == dir)
    snprintf(dir, sizeof dir, "/");
  meters_wrapf("fix:", "%s does not exist on this node (%s does): the path in the "
        "specification is wrong, or this node has no such device. Name the "
        "device this node has, in the site file or PMON_METERS.",
        path, dir);
}

/* The hint for the host of SPEC, which does not answer. */
static void hint_net(const struct pmon_spec *spec)
{
  char host[256];
  const char *how = "";

  host_in(spec, host, sizeof host);
  if (strcmp(spec->driver, "eaton") == 0)
    how = " SNMP uses UDP port 161 unless the specification gives another. "
          "An SNMP agent does not answer a wrong community at all: check "
          "the community too.";
  else if (strcmp(spec->driver, "redfish") == 0)
    how = " Redfish uses TCP port 443 (80 with scheme=http) unless the "
          "specification gives another; the BMC's Redfish service must be "
          "on.";
  meters_wrapf("fix:", "%s%s does not answer this node. Check that it is up, that "
        "its name resolves here, and that nothing (a firewall, a route) "
        "stands between them.%s",
        host[0] != '\0' ? "the host " : "the device", host, how);
}

/* Print the hint for trouble RC, MSG with the meter SPEC from SOURCE. */
void meters_hint(int rc, const char *msg, const struct pmon_spec *spec,
                 enum source source)
{
  char path[PATH_MAX];

  path_in(msg, path, sizeof path);
  switch (classify(rc, msg, spec)) {
  case TR_CONFIG:
    meters_wrapf("fix:", "the configuration is wrong (see pmon-driver-%s(7) and "
          "pmon-site(5)); a job with it does not start: pmon_init fails "
          "with PMON_ECONFIG.", spec->driver);
    break;
  case TR_NAMED:
    meters_wrapf("fix:", "a meter outside the node is never guessed: name it for "
          "this node with a line \"meter PATTERN SPEC\" in the site file "
          "(pmon-site(5)), or in PMON_METERS.");
    break;
  case TR_PERM:
    hint_perm(path);
    break;
  case TR_CRED:
    meters_wrapf("fix:", "the device refused the credentials. Check them in the "
          "site file's \"secret\" line that the meter's secret=NAME names "
          "(pmon-site(5)); keep them out of PMON_METERS, which other users "
          "of the node may read.");
    break;
  case TR_BUSY:
    meters_wrapf("fix:", "another process has %s open (another job on this node, "
          "or another pmon-meters): wait for it to end, or find it with "
          "fuser %s.", path[0] != '\0' ? path : "the device",
          path[0] != '\0' ? path : "DEVICE");
    break;
  case TR_NOTDEV:
    meters_wrapf("fix:", "what is there is not the device pmon-driver-%s(7) "
          "reads: name the serial line the instrument is attached to.",
          spec->driver);
    break;
  case TR_ABSENT:
    hint_absent(meters_has(msg, "HTTP 404") ? "HTTP 404" : path, spec, source);
    break;
  case TR_SILENT:
    meters_wrapf("fix:", "nothing answers on %s: check that the instrument is "
          "switched on, attached to that line, and set to the baud rate "
          "and line ending of the specification (pmon-driver-%s(7)).",
          path[0] != '\0' ? path : spec->path, spec->driver);
    break;
  case TR_NET:
    hint_net(spec);
    break;
  case TR_FORMAT:
    meters_wrapf("fix:", "the device answered, but not as pmon-driver-%s(7) "
          "expects (the message says what): another model or firmware?",
          spec->driver);
    break;
  default:
    meters_wrapf("fix:", "see pmon-driver-%s(7).", spec->driver);
    break;
  }
}

