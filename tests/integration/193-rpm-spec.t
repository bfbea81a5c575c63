#!/usr/bin/env bash
# 193-rpm-spec.t: contrib/rpm/cx5prof.spec builds. `make rpm` with
# rpmbuild from Debian's rpm package (--nodeps: the BuildRequires name EL
# packages) into a temporary tree, built once with -j2; the payload lists
# the binary, the man page, the units, the udev rule, the profiles, the
# schemas, the completion and the firewalld services, as `make install`
# puts them with the EL paths; the binary runs; the BuildRequires carry
# the minimum versions the code needs (json-c >= 0.14 for
# json_object_new_uint64). Nothing is installed.
. "$(dirname "$0")/lib.sh"
need_tool rpmbuild "Debian package rpm; contrib/install-deps.sh installs it"
need_tool rpmspec "Debian package rpm; contrib/install-deps.sh installs it"
W=$(mktemp -d /tmp/cx5t-rpm.XXXXXX)
trap 'rm -rf "$W"' EXIT
# rpm's database of this test (Debian's rpm would create ~/.rpmdb).
DB=(--dbpath "$W/rpmdb")
SPEC=$TOP/contrib/rpm/cx5prof.spec
VERSION=$(sed -n 's/^#define CX5PROF_VERSION "\(.*\)"$/\1/p' "$TOP/engine/base/version.h")

is "$(rpmspec "${DB[@]}" -q --buildrequires "$SPEC" 2>/dev/null | sort | tr '\n' ',')" \
	"gcc,json-c-devel >= 0.14,kernel-headers >= 5.8,libcurl-devel >= 7.73,libnl3-devel >= 3.2.7,libyaml-devel,make,pkgconf-pkg-config,sqlite-devel >= 3.22,systemd-rpm-macros," \
	"BuildRequires: EL names, with the minimum versions the code needs"

make -C "$TOP" --no-print-directory rpm PKG_BUILDDIR="$W/pkg" PKG_JOBS=2 RPMBUILD_FLAGS="--nodeps --dbpath $W/rpmdb" >"$W/build.log" 2>&1
ok $? "make rpm (rpmbuild -bb --nodeps)" || diag "$(tail -20 "$W/build.log")"
RPM=$(ls "$W"/pkg/rpm/RPMS/*/cx5prof-"$VERSION"-1.*.rpm 2>/dev/null | grep -v debug | head -n 1)
ok "$([ -f "$RPM" ] && echo 0 || echo 1)" "an RPM was built: ${RPM##*/}"
[ -f "$RPM" ] || { echo "Bail out! make rpm built no package"; exit 1; }
grep -q 'warning: Macro expanded in comment' "$W/build.log"
ok $((!$?)) "rpmbuild: no macro expanded in a comment"

rpm "${DB[@]}" -qpl "$RPM" 2>/dev/null >"$W/payload"
for f in /usr/sbin/cx5prof /usr/lib/systemd/system/cx5prof-apply@.service \
	/usr/lib/systemd/system/cx5prof-reapply.service /usr/lib/udev/rules.d/90-cx5prof.rules \
	/usr/share/bash-completion/completions/cx5prof /usr/share/cx5prof/profiles/udp-jumbo.yaml \
	/usr/share/cx5prof/profiles/lab-udp.yaml /usr/share/cx5prof/schemas/profile.schema.json \
	/usr/share/cx5prof/schemas/verify.schema.json /usr/lib/firewalld/services/cx5prof-serve.xml \
	/usr/lib/firewalld/services/cx5prof-netserver.xml /usr/share/doc/cx5prof/README.md; do
	grep -qx -- "$f" "$W/payload"
	ok $? "payload: $f"
done
grep -qE '^/usr/share/man/man8/cx5prof\.8(\.gz)?$' "$W/payload"
ok $? "payload: the man page"
is "$(grep -c '^/usr/share/cx5prof/profiles/.*\.yaml$' "$W/payload")" "$(ls "$TOP"/profiles/*.yaml | wc -l)" "payload: every profile"
is "$(grep -c '^/usr/share/cx5prof/schemas/.*\.json$' "$W/payload")" "$(ls "$TOP"/schemas/*.json | wc -l)" "payload: every schema"

mkdir -p "$W/root"
rpm2archive - <"$RPM" | tar -xzf - -C "$W/root"
is "$("$W/root/usr/sbin/cx5prof" --version)" "cx5prof $VERSION" "the packaged binary runs"
is "$(grep '^ExecStart=' "$W/root/usr/lib/systemd/system/cx5prof-apply@.service")" \
	"ExecStart=/usr/sbin/cx5prof apply --runtime-only /etc/cx5prof/profiles/%i.yaml" "the unit runs the packaged binary"
is "$(rpm "${DB[@]}" -qp --qf '%{NAME} %{VERSION}\n' "$RPM" 2>/dev/null)" "cx5prof $VERSION" "name and version"
done_testing
