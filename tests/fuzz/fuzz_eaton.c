/*
 * tests/fuzz/fuzz_eaton.c - the eaton driver, open, reads and the closing
 * cross-check, with the PDU's answers from the input.  The first piece is
 * the meter's specification (eaton://HOST/outlet/N?...); each later piece
 * is the answer to the next request, in the order the driver asks, as the
 * agent's values for the names asked:
 *
 *   byte 0    error-status (0 noError, 2 noSuchName, ...), byte 1 its index
 *   then 6 bytes per value: a type (0 INTEGER, 1 Gauge32, 2 Counter32,
 *             3 noSuchObject, 4 noSuchInstance, 5 endOfMibView, 6 OCTET
 *             STRING, any other: that ASN.1 type), a name byte (bit 0: the
 *             name asked with one more sub-identifier, the rest of the byte,
 *             as GETNEXT answers; bit 0 clear and not 0: another name), and
 *             a 32-bit big-endian value
 *
 * The values are answered under the names of the request, in its order,
 * so that what is fuzzed is what the driver does with values, with
 * missing, extra and misnamed ones, and with error-statuses; the BER
 * decoding underneath is net-snmp's (fuzzed by its own project).  No
 * packet leaves: the session calls are replaced here.
 */
/* Renamed before net-snmp's headers declare them: the header's prototypes
 * are then those of the replacements below. */
#define snmp_sess_open fuzz_sess_open
#define snmp_sess_close fuzz_sess_close
#define snmp_sess_synch_response fuzz_synch_response
#define snmp_sess_error fuzz_sess_error
#include "../../drivers/eaton.c"
#undef snmp_sess_open
#undef snmp_sess_close
#undef snmp_sess_synch_response
#undef snmp_sess_error

#include "fuzz.h"

static struct fuzz_piece piece[16];
static int npieces, next_piece, sessions;

void *fuzz_sess_open(netsnmp_session *s)
{
  (void)s;
  sessions++;
  return &sessions;
}

int fuzz_sess_close(void *sess)
{
  if (sess != &sessions || sessions-- <= 0)
    abort(); /* closed once, and only what was opened */
  return 1;
}

void fuzz_sess_error(void *sess, int *clib, int *snmperr, char **err)
{
  (void)sess;
  *clib = 0;
  *snmperr = SNMPERR_GENERR;
  *err = strdup("fuzz: no such agent");
}

int fuzz_synch_response(void *sess, netsnmp_pdu *pdu,
                        netsnmp_pdu **resp)
{
  const netsnmp_variable_list *vb = pdu->variables;
  const unsigned char *p;
  netsnmp_pdu *r;
  size_t n;

  if (sess != &sessions)
    abort();
  *resp = NULL;
  if (next_piece >= npieces) {
    snmp_free_pdu(pdu);
    return next_piece++ == npieces ? STAT_TIMEOUT : STAT_ERROR;
  }
  p = (const unsigned char *)piece[next_piece].p;
  n = piece[next_piece++].n;
  if ((r = snmp_pdu_create(SNMP_MSG_RESPONSE)) == NULL)
    abort();
  if (n >= 2) {
    r->errstat = p[0];
    r->errindex = p[1];
    p += 2;
    n -= 2;
  }
  for (; n >= 6; p += 6, n -= 6) {
    static const unsigned char types[] = {
        ASN_INTEGER,         ASN_GAUGE,           ASN_COUNTER,
        SNMP_NOSUCHOBJECT,   SNMP_NOSUCHINSTANCE, SNMP_ENDOFMIBVIEW,
        ASN_OCTET_STR};
    oid name[MAX_OID_LEN] = {1, 3, 6, 1, 2, 1, 1, 1, 0};
    size_t len = 9;
    unsigned char type = p[0] < sizeof types ? types[p[0]] : p[0];
    uint32_t u = (uint32_t)p[2] << 24 | (uint32_t)p[3] << 16 |
                 (uint32_t)p[4] << 8 | p[5];
    long l = (long)(int32_t)u;
    u_long ul = u;

    if (vb != NULL) {
      memcpy(name, vb->name, vb->name_length * sizeof(oid));
      len = vb->name_length;
      vb = vb->next_variable;
    }
    if ((p[1] & 1) && len < MAX_OID_LEN)
      name[len++] = p[1] >> 1;
    else if (p[1] != 0)
      name[len - 1] += p[1];
    switch (type) {
    case ASN_INTEGER:
      snmp_pdu_add_variable(r, name, len, type, &l, sizeof l);
      break;
    case ASN_GAUGE:
    case ASN_COUNTER:
      snmp_pdu_add_variable(r, name, len, type, &ul, sizeof ul);
      break;
    case ASN_OCTET_STR:
      snmp_pdu_add_variable(r, name, len, type, p + 2, 4);
      break;
    default:
      snmp_pdu_add_variable(r, name, len, type, NULL, 0);
    }
  }
  snmp_free_pdu(pdu);
  *resp = r;
  return STAT_SUCCESS;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct pmon_meter m;
  static struct eaton_priv ep;
  struct pmon_reading r;
  char *spec, note[320];

  npieces = fuzz_pieces(data, size, piece, 16);
  next_piece = 1;
  memset(&m, 0, sizeof m);
  memset(&ep, 0, sizeof ep);
  m.priv = &ep;
  m.drv = &pmon__driver_eaton;
  m.flags = pmon__driver_eaton.flags;
  m.interval_s = pmon__driver_eaton.interval_s;
  spec = fuzz_text(piece[0].p, piece[0].n);
  if (pmon__spec_parse(spec, &m.spec) != 0 &&
      pmon__spec_parse("eaton://pdu.example/outlet/1+2", &m.spec) != 0)
    abort();
  free(spec);
  if (eaton_open(&m) != 0) {
    if (sessions != 0)
      abort(); /* a failed open leaves no session */
    return 0;
  }
  if (m.nch < 1 || m.nch > PMON_CH_MAX || m.nch != ep.n)
    abort();
  while (next_piece < npieces) {
    memset(&r, 0, sizeof r);
    if (eaton_read(&m, &r) == 0)
      for (int c = 0; c < m.nch; c++)
        if (!isfinite(r.watts[c]) || r.watts[c] < 0)
          abort(); /* a power is finite and not negative */
  }
  if (eaton_finish(&m, note, sizeof note) && memchr(note, 0, sizeof note) == NULL)
    abort();
  eaton_close(&m);
  if (sessions != 0)
    abort();
  return 0;
}
