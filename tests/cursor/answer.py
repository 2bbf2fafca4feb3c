#!/usr/bin/env python3
"""A Cursor hook that prints argv[2] on stdout, argv[3] on stderr, and exits argv[1].

Reads (and ignores) its stdin first, as a real hook does.
"""
import sys

sys.stdin.read()
sys.stdout.write(sys.argv[2] if len(sys.argv) > 2 else "")
sys.stderr.write(sys.argv[3] if len(sys.argv) > 3 else "")
sys.exit(int(sys.argv[1]))
