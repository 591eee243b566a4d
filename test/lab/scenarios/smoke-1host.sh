# hosts: 1
# timeout: 600
# The lab itself, one VM: upstream tools over rxe0/rxe1 on a veth pair.
. "$LAB_SCEN/smoke-upstream.inc"
