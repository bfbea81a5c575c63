#!/usr/bin/env bash
# 37-requires.t: plan and doctor judge a profile's requires section by one
# evaluation (engine/requires.h), in the lab on copies of the cx5-2port
# sysroot. requires.driver.min_version is MLNX_OFED's minimum, compared only
# where the module publishes a version; requires.driver.min_kernel is the
# inbox driver's, compared with the kernel release (a RHEL 8 host:
# 4.18.0-513.el8). The message says which was compared. A version that
# cannot be compared blocks plan, and doctor fails it too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/txn-lib.sh"
need_root_netns
txn_setup 37

profile() { # profile NAME DRIVER-KEYS
	printf 'version: 1\nname: %s\nmatch:\n  interfaces: [ens1f0]\nrequires:\n  driver:\n%s\nlink:\n  mtu: 9000\n' \
		"$1" "$2" >"$WORK/profiles/$1.yaml"
}
driver_line() { printf '%s\n' "$out" | awk '/^[A-Z]+  ens1f0 +driver /{print; if ((getline l) > 0 && l ~ /^ +fix:/) print l}'; }

# ---- an inbox driver on a RHEL 8 kernel
printf '4.18.0-513.el8.x86_64\n' >"$SR/proc/sys/kernel/osrelease"
profile both '    min_version: "5.0-0"
    min_kernel: "4.18.0"'
run cx plan "$WORK/profiles/both.yaml"
is "$rc:$(printf '%s\n' "$out" | tail -n 1)" "2:1 change pending" \
	"RHEL 8 inbox: the OFED minimum is not compared with 4.18.0-513.el8, the kernel minimum is met"
is "$(printf '%s\n' "$err" | grep -c 'error:')" 0 "RHEL 8 inbox: no problem"
run cx doctor "$WORK/profiles/both.yaml"
is "$(driver_line)" "PASS  ens1f0          driver      driver mlx5_core 4.18.0-513.el8.x86_64: inbox driver of kernel 4.18.0-513.el8.x86_64 >= 4.18.0 (requires.driver.min_kernel)" \
	"RHEL 8 inbox: doctor passes, saying what it compared"

profile ofed-only '    min_version: "5.0-0"'
run cx plan "$WORK/profiles/ofed-only.yaml"
is "$rc" 2 "min_version only, inbox driver: not a problem"
is "$(printf '%s\n' "$err" | grep warning: | head -n 1)" \
	"cx5prof: warning: ens1f0: requires.driver.min_version is for MLNX_OFED: inbox driver of kernel 4.18.0-513.el8.x86_64 not compared with 5.0-0" \
	"min_version only, inbox driver: plan warns it compared nothing"
run cx doctor "$WORK/profiles/ofed-only.yaml"
is "$(driver_line)" "WARN  ens1f0          driver      requires.driver.min_version is for MLNX_OFED: inbox driver of kernel 4.18.0-513.el8.x86_64 not compared with 5.0-0
                                  fix: add requires.driver.min_kernel for hosts without MLNX_OFED" \
	"min_version only, inbox driver: doctor warns the same"

profile new-kernel '    min_kernel: "5.14"'
run cx plan "$WORK/profiles/new-kernel.yaml"
is "$rc" 5 "min_kernel 5.14 on 4.18: plan exit 5"
is "$(printf '%s\n' "$err" | grep error:)" \
	"cx5prof: error: ens1f0: inbox driver of kernel 4.18.0-513.el8.x86_64 is older than the required 5.14 (requires.driver.min_kernel): boot a newer kernel, or install MLNX_OFED (then requires.driver.min_version applies)" \
	"min_kernel 5.14 on 4.18: the kernel was compared, and the message says so"
run cx doctor "$WORK/profiles/new-kernel.yaml"
is "$rc:$(driver_line)" "5:FAIL  ens1f0          driver      inbox driver of kernel 4.18.0-513.el8.x86_64 is older than the required 5.14 (requires.driver.min_kernel)
                                  fix: boot a newer kernel, or install MLNX_OFED (then requires.driver.min_version applies)" \
	"min_kernel 5.14 on 4.18: doctor fails with plan's message"

# ---- MLNX_OFED whose version cannot be compared
mkdir -p "$SR/sys/module/mlx5_core"
printf 'internal-build\n' >"$SR/sys/module/mlx5_core/version"
run cx plan "$WORK/profiles/both.yaml"
is "$rc" 5 "incomparable OFED version: plan exit 5"
is "$(printf '%s\n' "$err" | grep error:)" \
	"cx5prof: error: ens1f0: MLNX_OFED driver \"internal-build\" cannot be compared with 5.0-0 (requires.driver.min_version): compare it by hand with the release notes, then change or remove the minimum" \
	"incomparable OFED version: plan blocks, naming the OFED minimum"
run cx doctor "$WORK/profiles/both.yaml"
is "$rc:$(driver_line)" "5:FAIL  ens1f0          driver      MLNX_OFED driver \"internal-build\" cannot be compared with 5.0-0 (requires.driver.min_version)
                                  fix: compare it by hand with the release notes, then change or remove the minimum" \
	"incomparable OFED version: doctor fails it as plan blocks it"

printf '5.8-1.0.1\n' >"$SR/sys/module/mlx5_core/version"
run cx plan "$WORK/profiles/both.yaml"
is "$rc:$(printf '%s\n' "$err" | grep -c 'error:\|min_kernel')" "2:0" \
	"MLNX_OFED 5.8: the OFED minimum is met, the kernel minimum not compared"
run cx doctor "$WORK/profiles/both.yaml"
is "$(driver_line)" "PASS  ens1f0          driver      driver mlx5_core 5.8-1.0.1: MLNX_OFED driver 5.8-1.0.1 >= 5.0-0 (requires.driver.min_version)" \
	"MLNX_OFED 5.8: doctor passes, saying what it compared"

done_testing
