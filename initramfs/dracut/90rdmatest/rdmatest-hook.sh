#!/bin/sh
# dracut pre-mount hook: run the rdmatest diagnostics asked for on the
# kernel command line (rdmatest.run=..., see /usr/lib/rdmatest/diag).
/usr/lib/rdmatest/diag || warn "rdmatest diagnostics: exit $?"
