#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# dracut pre-mount hook: run the rdmatest diagnostics asked for on the
# kernel command line (rdmatest.run=..., see /usr/lib/rdmatest/diag).
/usr/lib/rdmatest/diag || warn "rdmatest diagnostics: exit $?"
