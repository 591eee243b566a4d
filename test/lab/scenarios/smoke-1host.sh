# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 1
# timeout: 600
# The lab itself, one VM: upstream tools over rxe0/rxe1 on a veth pair.
. "$LAB_SCEN/smoke-upstream.inc"
