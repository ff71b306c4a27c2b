#!/usr/bin/env python3
"""expo.py - read Prometheus text exposition, for the metrics tests.

  expo.py SOURCE NAME [LABEL=VALUE ...]

SOURCE is a file, "-" (standard input) or an http:// address (scraped).
Prints the value of each sample of metric NAME whose labels include the
LABEL=VALUE pairs given, one per line, with its labels as a JSON object:

  200.5 {"job": "42", "node": "n1"}

Label values are unescaped as the format says (backslash, double quote,
line feed).  Exit status 0 when at least one sample matched, 1 when none
did, 2 when SOURCE cannot be read or a line is not of the format.
"""
import json
import re
import sys
import urllib.request

NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LINE = re.compile(r'^(' + NAME + r')(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$')
LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?')


def unescape(v):
    return re.sub(r'\\(.)', lambda m: {'n': '\n'}.get(m.group(1), m.group(1)), v)


def labels(text):
    out, pos = {}, 0
    while pos < len(text):
        m = LABEL.match(text, pos)
        if not m:
            raise ValueError('bad labels: ' + text)
        out[m.group(1)] = unescape(m.group(2))
        pos = m.end()
    return out


def main():
    if len(sys.argv) < 3:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    src, name = sys.argv[1], sys.argv[2]
    want = dict(a.split('=', 1) for a in sys.argv[3:])
    try:
        if src.startswith('http://'):
            text = urllib.request.urlopen(src, timeout=10).read().decode()
        elif src == '-':
            text = sys.stdin.read()
        else:
            with open(src, encoding='utf-8') as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print('expo.py: %s: %s' % (src, e), file=sys.stderr)
        return 2
    found = 0
    for line in text.splitlines():
        if not line or line.startswith('#'):
            continue
        m = LINE.match(line)
        if not m:
            print('expo.py: %s: not a sample: %r' % (src, line), file=sys.stderr)
            return 2
        try:
            lab = labels(m.group(2) or '')
        except ValueError as e:
            print('expo.py: %s: %s' % (src, e), file=sys.stderr)
            return 2
        if m.group(1) == name and all(lab.get(k) == v for k, v in want.items()):
            print(m.group(3), json.dumps(lab, sort_keys=True))
            found += 1
    return 0 if found else 1


if __name__ == '__main__':
    sys.exit(main())
