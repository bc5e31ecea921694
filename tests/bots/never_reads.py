#!/usr/bin/env python3
"""Test bot: never reads its stdin and never answers; it only sleeps.

Any arguments (a tag) only mark the process for the tests' leftover check.
"""
import time

time.sleep(3600)
