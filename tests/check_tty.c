/*
 * check_tty.c - base/tty.c: the escaped form of text from outside, for a
 * terminal (tty.h).  A table of inputs and their forms, each row with its
 * line; then what holds whatever the input: the form is valid UTF-8
 * without a control character, escaping it again changes nothing, and a
 * buffer too small cuts it before an escape, never inside one.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tty.h"

static const struct {
  int line;
  const char *in, *out;
} rows[] = {
  {__LINE__, "", ""},
  {__LINE__, "solve", "solve"},
  {__LINE__, "a\\b", "a\\b"}, /* the backslash is kept */
  /* C0, named and not, and DEL */
  {__LINE__, "\033[2J", "\\e[2J"},
  {__LINE__, "t\a", "t\\a"},
  {__LINE__, "\b\t\n\v\f\r", "\\b\\t\\n\\v\\f\\r"},
  {__LINE__, "\x01\x1f", "\\x01\\x1f"},
  {__LINE__, "x\x7fy", "x\\x7fy"},
  /* the row 6 name of the issue: 5 ESC and BEL bytes */
  {__LINE__, "step\033[2J\033[H\033]0;owned\a\033[31m",
   "step\\e[2J\\e[H\\e]0;owned\\a\\e[31m"},
  /* C1 as UTF-8: U+0080, U+009B (CSI), U+009F; U+00A0 is kept */
  {__LINE__, "\xc2\x80", "\\u0080"},
  {__LINE__, "a\xc2\x9b" "31m", "a\\u009b31m"},
  {__LINE__, "\xc2\x9f\xc2\xa0", "\\u009f\xc2\xa0"},
  /* valid UTF-8 of 2, 3 and 4 bytes, at the edges of the ranges */
  {__LINE__, "\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9"},
  {__LINE__, "\xe2\x82\xac \xe0\xa0\x80 \xed\x9f\xbf \xef\xbf\xbd",
   "\xe2\x82\xac \xe0\xa0\x80 \xed\x9f\xbf \xef\xbf\xbd"},
  {__LINE__, "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
   "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"},
  {__LINE__, "\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac"},
  /* a raw C1 byte, a stray continuation byte, bytes never in UTF-8 */
  {__LINE__, "\x9b" "2J", "\\x9b2J"},
  {__LINE__, "a\x80z", "a\\x80z"},
  {__LINE__, "\xfe\xff\xf5", "\\xfe\\xff\\xf5"},
  /* overlong forms: of '/', of ESC, of U+0000, 3 and 4 bytes */
  {__LINE__, "\xc0\xaf", "\\xc0\\xaf"},
  {__LINE__, "\xc1\x9b", "\\xc1\\x9b"},
  {__LINE__, "\xe0\x80\x80", "\\xe0\\x80\\x80"},
  {__LINE__, "\xf0\x80\x80\x9b", "\\xf0\\x80\\x80\\x9b"},
  /* a surrogate; past U+10FFFF */
  {__LINE__, "\xed\xa0\x80", "\\xed\\xa0\\x80"},
  {__LINE__, "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},
  /* cut short: at the end, and before an ASCII byte or an ESC */
  {__LINE__, "ab\xe2\x82", "ab\\xe2\\x82"},
  {__LINE__, "\xf0\x9f\x98", "\\xf0\\x9f\\x98"},
  {__LINE__, "\xc3" "a", "\\xc3a"},
  {__LINE__, "\xe2\x82\033[m", "\\xe2\\x82\\e[m"},
};

START_TEST(test_rows)
{
  const char *in = rows[_i].in, *want = rows[_i].out;
  size_t len = pmon__tty_escape(NULL, 0, in);
  char *got = malloc(len + 1);

  ck_assert_ptr_nonnull(got);
  ck_assert_uint_eq(pmon__tty_escape(got, len + 1, in), len);
  ck_assert_msg(strcmp(got, want) == 0, "line %d: got \"%s\", want \"%s\"",
                rows[_i].line, got, want);
  ck_assert_msg(len <= PMON_TTY_SIZE(strlen(in)) - 1, "line %d: %zu bytes",
                rows[_i].line, len);
  ck_assert_msg(pmon__tty_safe(in) == (strcmp(in, want) == 0),
                "line %d: pmon__tty_safe", rows[_i].line);
  ck_assert_msg(pmon__tty_safe(got), "line %d: the form is not safe",
                rows[_i].line);
  free(got);
  got = pmon__tty_dup(in);
  ck_assert_msg(got != NULL && strcmp(got, want) == 0, "line %d: dup",
                rows[_i].line);
  free(got);
}
END_TEST

/* Whatever the bytes: no control byte, no C1, escaping twice is once.
 * (Checked without ck_assert in the loop: in fork mode each call is a
 * write to Check's pipe.) */
START_TEST(test_any_bytes)
{
  unsigned long x = 88172645463325252ul;
  char in[64], out[PMON_TTY_SIZE(63)], again[sizeof out];
  const char *bad = NULL;
  int k;

  for (k = 0; k < 20000 && bad == NULL; k++) {
    size_t n = (size_t)(k % 63), len;
    for (size_t i = 0; i < n; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
      in[i] = (char)(x % 7 == 0 ? 0xC2 : x % 11 == 0 ? 0x1B : x >> 24);
      if (in[i] == '\0')
        in[i] = 'z';
    }
    in[n] = '\0';
    len = pmon__tty_escape(out, sizeof out, in);
    if (len >= sizeof out)
      bad = "longer than PMON_TTY_SIZE";
    for (size_t i = 0; i < len && bad == NULL; i++) {
      unsigned char c = (unsigned char)out[i];
      if (c < 0x20 || c == 0x7F)
        bad = "a control byte in the form";
      else if (c == 0xC2 && (unsigned char)out[i + 1] < 0xA0)
        bad = "a C1 character in the form";
    }
    if (bad == NULL && !pmon__tty_safe(out))
      bad = "the form is not safe";
    pmon__tty_escape(again, sizeof again, out);
    if (bad == NULL && strcmp(again, out) != 0)
      bad = "escaping the form changed it";
  }
  ck_assert_msg(bad == NULL, "input %d: %s", k - 1, bad);
}
END_TEST

/* A buffer too small: cut before the escape or character that does not
 * fit, NUL terminated; the length of the whole form all the same. */
START_TEST(test_cut)
{
  char buf[8];

  memset(buf, 'x', sizeof buf);
  ck_assert_uint_eq(pmon__tty_escape(buf, 6, "ab\033cd"), 6);
  ck_assert_str_eq(buf, "ab\\ec");
  ck_assert_uint_eq(pmon__tty_escape(buf, 5, "ab\033cd"), 6);
  ck_assert_str_eq(buf, "ab\\e");
  ck_assert_uint_eq(pmon__tty_escape(buf, 4, "ab\033cd"), 6);
  ck_assert_str_eq(buf, "ab");
  ck_assert_uint_eq(pmon__tty_escape(buf, 4, "a\xc3\xa9\xc3\xa9"), 5);
  ck_assert_str_eq(buf, "a\xc3\xa9");
  ck_assert_uint_eq(pmon__tty_escape(buf, 3, "a\xc3\xa9"), 3);
  ck_assert_str_eq(buf, "a");
  ck_assert_uint_eq(pmon__tty_escape(buf, 1, "abc"), 3);
  ck_assert_str_eq(buf, "");
  buf[0] = 'x';
  ck_assert_uint_eq(pmon__tty_escape(buf, 0, "abc"), 3);
  ck_assert_int_eq(buf[0], 'x'); /* SIZE 0: nothing written */
  ck_assert_uint_eq(pmon__tty_escape(buf, sizeof buf, NULL), 0);
  ck_assert_str_eq(buf, "");
  ck_assert_ptr_null(pmon__tty_dup(NULL));
  ck_assert(pmon__tty_safe(NULL));
  /* N bytes with a NUL among them */
  ck_assert_uint_eq(pmon__tty_escape_n(buf, sizeof buf, "a\0b", 3), 6);
  ck_assert_str_eq(buf, "a\\x00b");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("tty");
  TCase *tc = tcase_create("tty");
  SRunner *sr;
  int failed;

  tcase_add_loop_test(tc, test_rows, 0, (int)(sizeof rows / sizeof rows[0]));
  tcase_add_test(tc, test_any_bytes);
  tcase_add_test(tc, test_cut);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
