/*
 * tests/fuzz/fuzz_redfish.c - the redfish driver, open and reads, with the
 * BMC's answers from the input.  The first piece is the meter's
 * specification (redfish://HOST/CHASSIS?...); each later piece is the next
 * answer, in the order the driver asks: the chassis, then
 * EnvironmentMetrics or Power, then one per reading.  A piece that starts
 * with three digits and a newline gives that HTTP status; any other is a
 * 200 with the piece as its body.  libcurl is set up as the driver sets it
 * up, but no request leaves: the transfer is replaced here.
 */
#include <curl/curl.h>

static CURLcode fuzz_perform(CURL *curl);
static CURLcode fuzz_getinfo(void *curl, CURLINFO info, long *out);
#undef curl_easy_getinfo /* curl.h's type-checking macro */
#define curl_easy_perform fuzz_perform /* also where it is passed */
#define curl_easy_getinfo(c, i, o) fuzz_getinfo(c, i, o)
#include "../../drivers/redfish.c"
#undef curl_easy_perform
#undef curl_easy_getinfo

#include "fuzz.h"

static struct fuzz_piece piece[12];
static int npieces, next_piece;
static struct rf_priv *fuzz_p;
static long status;
static int curl_once;

/* The next answer, delivered as libcurl would: through on_body(). */
static CURLcode fuzz_perform(CURL *curl)
{
  const char *p;
  size_t n;

  (void)curl;
  if (next_piece >= npieces)
    return CURLE_COULDNT_CONNECT;
  p = piece[next_piece].p;
  n = piece[next_piece++].n;
  status = 200;
  if (n >= 4 && p[3] == '\n' && p[0] >= '1' && p[0] <= '5' &&
      p[1] >= '0' && p[1] <= '9' && p[2] >= '0' && p[2] <= '9') {
    status = (p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0');
    p += 4;
    n -= 4;
  }
  /* libcurl hands a body over in pieces of at most 16 KiB. */
  for (size_t done = 0; done < n;) {
    size_t k = n - done < 16384 ? n - done : 16384;
    char chunk[16384];

    memcpy(chunk, p + done, k);
    if (on_body(chunk, 1, k, fuzz_p) != k)
      return CURLE_WRITE_ERROR;
    done += k;
  }
  return CURLE_OK;
}

static CURLcode fuzz_getinfo(void *curl, CURLINFO info, long *out)
{
  (void)curl;
  if (info != CURLINFO_RESPONSE_CODE)
    abort(); /* the driver asks for nothing else */
  *out = status;
  return CURLE_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct pmon_meter m;
  static struct rf_priv p;
  struct pmon_reading r;
  char *spec;

  /* Once for the process: the driver's own init and cleanup then only
   * count, instead of setting up TLS for every input. */
  if (!curl_once && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    abort();
  curl_once = 1;
  npieces = fuzz_pieces(data, size, piece, 12);
  next_piece = 1;
  memset(&m, 0, sizeof m);
  memset(&p, 0, sizeof p);
  m.priv = fuzz_p = &p;
  m.drv = &pmon__driver_redfish;
  m.flags = pmon__driver_redfish.flags;
  m.interval_s = pmon__driver_redfish.interval_s;
  spec = fuzz_text(piece[0].p, piece[0].n);
  if (pmon__spec_parse(spec, &m.spec) != 0 &&
      pmon__spec_parse("redfish://bmc.example/1", &m.spec) != 0)
    abort();
  free(spec);
  if (rf_open(&m) != 0)
    return 0;
  if (m.nch < 1 || m.nch > PMON_CH_MAX || m.interval_s <= 0)
    abort();
  while (next_piece < npieces) {
    memset(&r, 0, sizeof r);
    if (rf_read(&m, &r) == 0)
      for (int c = 0; c < m.nch; c++)
        if (!isfinite(r.watts[c]) || r.watts[c] < 0)
          abort(); /* a power is finite and not negative */
  }
  rf_close(&m);
  return 0;
}
