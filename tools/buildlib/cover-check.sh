#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check's "cover letters": the texts a reviewer reads first name
# every interface the patches add, in KTAP on stdout.
#   - patches/cover-letter.txt, for the series of build/patchset-check (the
#     series check's), and patches/rfc/cover-letter.txt for the RFC series on top
#     of it, its rfc/: each export (EXPORT_SYMBOL, EXPORT_SYMBOL_GPL; those
#     _IF_KUNIT are the tests'), tracepoint, module parameter, sysfs
#     attribute (the last part of a Documentation/ABI What:), rdma netlink
#     attribute and enum of include/uapi/rdma, driver attribute of the
#     resource dump, rxe hardware counter, Kconfig option, kernel
#     capability flag and header of include/rdma or include/trace/events;
#     and its counts, "New exports
#     (N)" and "New tracepoints (N", are the series';
#   - compat/README.md, for the patches of compat/series: each export and
#     module parameter they add;
#   - the posting (cover letter and patches) says nothing of a
#     distribution's constraints (kABI, symbol CRCs, genksyms, DKMS, a
#     distribution, compat/): upstream does not carry them;
#   - each .rst file the series adds (patches/new-files), as both series
#     leave it, parses under docutils without a warning (a malformed table, a broken reference:
#     what the kernel's Sphinx build trips over first).
# Then the checks themselves: the cover letter without the series' first
# export must fail, so must a patch that names the kABI, and so must a
# table with text in its column margin.
. "$(dirname "$0")/common.sh"

PSET=$BUILD/patchset-check
COVER=$REPO/patches/cover-letter.txt
RFC_COVER=$REPO/patches/rfc/cover-letter.txt
COMPAT_README=$REPO/compat/README.md
ksrc_init rdma >&2
# shellcheck source=/dev/null # the kernel tree's
. "$KSRC/$KTAP_HELPERS"

# added PATCH...: "KIND NAME" for each interface the patches add, in
# order, once each.
added() {
	awk '
	/^--- / { created = ($0 == "--- /dev/null"); next }
	/^\+\+\+ b\// {
		file = substr($0, 7)
		if (created && file ~ /^include\/(rdma|uapi\/rdma|trace\/events)\/.*\.h$/)
			print "header", substr(file, 9)
		next
	}
	!/^\+/ { next }
	{
		line = substr($0, 2)
		if (file ~ /Kconfig$/ && match(line, /^config [A-Z0-9_]+/)) {
			print "kconfig", "CONFIG_" substr(line, 8, RLENGTH - 7)
		} else if (file ~ /^include\/rdma\/ib_verbs\.h$/ &&
			   match(line, /^[ \t]*IBK_[A-Z0-9_]+ *=/)) {
			n = substr(line, RSTART, RLENGTH); sub(/^[ \t]*/, "", n); sub(/ *=$/, "", n)
			print "capability", n
		} else if (match(line, /^EXPORT_SYMBOL(_GPL)?\([A-Za-z0-9_]+\)/)) {
			n = line; sub(/^[^(]*\(/, "", n); sub(/\).*/, "", n)
			print "export", n
		} else if (match(line, /^TRACE_EVENT\([A-Za-z0-9_]+,/)) {
			n = line; sub(/^[^(]*\(/, "", n); sub(/,.*/, "", n)
			print "tracepoint", n
		} else if (match(line, /^DEFINE_EVENT(_PRINT)?\([A-Za-z0-9_]+, *[A-Za-z0-9_]+,/)) {
			n = line; sub(/^[^,]*, */, "", n); sub(/,.*/, "", n)
			print "tracepoint", n
		} else if (match(line, /module_param(_cb|_named)?\([A-Za-z0-9_]+,/)) {
			n = substr(line, RSTART); sub(/^[^(]*\(/, "", n); sub(/,.*/, "", n)
			print "module-parameter", n
		} else if (file ~ /^Documentation\/ABI\// && line ~ /^What:/) {
			n = line; sub(/.*\//, "", n)
			print "sysfs-attribute", n
		} else if (file ~ /^include\/uapi\/rdma\// &&
			   match(line, /^[ \t]*RDMA_NLDEV_[A-Z_]*ATTR_[A-Z0-9_]+/)) {
			n = substr(line, RSTART, RLENGTH); sub(/^[ \t]*/, "", n)
			print "netlink-attribute", n
		} else if (file ~ /^include\/uapi\/rdma\// && match(line, /^enum [a-z0-9_]+ \{/)) {
			n = line; sub(/^enum /, "", n); sub(/ .*/, "", n)
			print "uapi-enum", n
		} else if (match(line, /rdma_nl_put_driver_[a-z0-9_]+\([a-z]+, *"[a-z0-9_]+"/)) {
			n = substr(line, RSTART); sub(/^[^"]*"/, "", n); sub(/".*/, "", n)
			print "driver-attribute", n
		} else if (file ~ /rxe_hw_counters\.c$/ && match(line, /\.name *= *"[a-z0-9_]+"/)) {
			n = substr(line, RSTART); sub(/^[^"]*"/, "", n); sub(/".*/, "", n)
			print "rxe-counter", n
		}
	}' "$@" | awk '!seen[$0]++'
}

# rst_clean FILE: Debian's docutils (python3-docutils) parses FILE and
# reports nothing at warning level or above; prints what it reports.
rst_clean() {
	/usr/bin/python3 - "$1" <<-'EOF'
		import io, sys
		import docutils.core
		err = io.StringIO()
		with open(sys.argv[1]) as f:
		    docutils.core.publish_doctree(f.read(), source_path=sys.argv[1],
		        settings_overrides={"warning_stream": err, "report_level": 2,
		                            "halt_level": 5})
		sys.stdout.write(err.getvalue())
		sys.exit(1 if err.getvalue() else 0)
	EOF
}

# flat FILE: FILE on one line, runs of blanks one space.
flat() {
	tr -s ' \t\n' '   ' < "$1"
}

# unnamed TEXTFILE: the "KIND NAME" lines of stdin whose NAME TEXTFILE
# lacks as a word.
unnamed() {
	local kind name text

	text=$(flat "$1")
	while read -r kind name; do
		grep -qw -- "$name" <<< "$text" || echo "$kind $name"
	done
}

# distro_words FILE...: the lines of FILEs that name a distribution's
# constraint, FILE:LINE:text.  "CRC" alone is a switch hash in the
# documentation; a symbol's CRC is not.
distro_words() {
	grep -n -i -H -E "\bkabi\b|symbols?'?s? crcs?\b|\bcrcs? of\b|genksyms|modversions|\bdkms\b|debian|distribution kernel|\bcompat/|backport|mlnx_ofed" "$@"
}

# count_is TEXTFILE PHRASE N: TEXTFILE says "PHRASE (N".
count_is() {
	local said

	said=$(flat "$1" | grep -o "$2 ([0-9]*" | head -n 1)
	echo "# $3 in the series, cover letter: ${said:-nothing}"
	[ "${said##*(}" = "$3" ]
}

[ -d "$PSET" ] || die "no $PSET: run 'make series-check' first"
mapfile -t patches < <(posting_patches "$PSET")
[ ${#patches[@]} -gt 0 ] || die "no patches in $PSET"
mapfile -t rfcs < <(posting_patches "$PSET/rfc")
[ ${#rfcs[@]} -gt 0 ] || die "no patches in $PSET/rfc: run 'make series-check' first"
mapfile -t compats < <(sed -e '/^#/d' -e '/^$/d' -e "s|^|$REPO/compat/|" "$REPO/compat/series")

series_names=$(added "${patches[@]}")
compat_names=
[ ${#compats[@]} = 0 ] || compat_names=$(added "${compats[@]}")

mapfile -t rsts < <(awk '!/^#/ && $2 ~ /\.rst$/ { print $2 }' "$REPO/patches/new-files")

ktap_print_header
ktap_set_plan $((11 + ${#rsts[@]}))

# cover_checks WHAT COVER NAMES: COVER names each of NAMES ("KIND NAME"
# lines, what a series adds) and counts its exports and tracepoints.
cover_checks() {
	local what=$1 cover=$2 names=$3 missing n

	echo "# $what adds $(wc -l <<< "$names") interfaces:"
	sed 's/^/#   /' <<< "$names"
	missing=$(unnamed "$cover" <<< "$names")
	[ -z "$missing" ] || sed 's/^/# not in the cover letter: /' <<< "$missing"
	if [ -z "$missing" ] && [ -n "$names" ]; then
		ktap_test_pass "$what: the cover letter names every interface the series adds"
	else
		ktap_test_fail "$what: the cover letter names every interface the series adds"
	fi

	n=$(grep -c '^export ' <<< "$names")
	if count_is "$cover" "New exports" "$n"; then
		ktap_test_pass "$what: the cover letter counts the series' $n exports"
	else
		ktap_test_fail "$what: the cover letter counts the series' $n exports"
	fi
	n=$(grep -c '^tracepoint ' <<< "$names")
	if count_is "$cover" "New tracepoints" "$n"; then
		ktap_test_pass "$what: the cover letter counts the series' $n tracepoints"
	else
		ktap_test_fail "$what: the cover letter counts the series' $n tracepoints"
	fi
}

cover_checks "the series" "$COVER" "$series_names"
cover_checks "the RFC series (re-path)" "$RFC_COVER" "$(added "${rfcs[@]}")"

missing=$(grep -E '^(export|module-parameter) ' <<< "$compat_names" | unnamed "$COMPAT_README")
[ -z "$missing" ] || sed 's/^/# not in compat\/README.md: /' <<< "$missing"
if [ -z "$missing" ]; then
	ktap_test_pass "compat/README.md names every export and module parameter compat/ adds"
else
	ktap_test_fail "compat/README.md names every export and module parameter compat/ adds"
fi

words=$(distro_words "$PSET"/[0-9][0-9][0-9][0-9]-*.patch "$PSET"/rfc/[0-9][0-9][0-9][0-9]-*.patch |
	sed "s|^$PSET/||" || true)
[ -z "$words" ] || sed 's/^/# /' <<< "$words"
if [ -z "$words" ]; then
	ktap_test_pass "the posting says nothing of a distribution's kABI, DKMS or compat/"
else
	ktap_test_fail "the posting says nothing of a distribution's kABI, DKMS or compat/"
fi

# the documentation as both series leave it
staged=$(mktemp -d "${TMPDIR:-/tmp}/cover-check.XXXXXX")
trap 'rm -rf "$staged"' EXIT
stage_src "$staged/src" >&2
for f in "${rsts[@]}"; do
	if out=$(rst_clean "$staged/src/$f" 2>&1); then
		ktap_test_pass "$f, as both series leave it, parses without a docutils warning"
	else
		sed 's/^/# /' <<< "$out"
		ktap_test_fail "$f, as both series leave it, parses without a docutils warning"
	fi
done

# The controls: the first export gone from the cover letter, a table with
# text in its margin; each check fails.
first=$(grep -m 1 '^export ' <<< "$series_names")
control=$staged/control
sed "s/\b${first#* }\b/(removed)/g" "$COVER" > "$control"
if [ -n "$first" ] && [ "$(unnamed "$control" <<< "$first")" = "$first" ]; then
	ktap_test_pass "a cover letter without ${first#* } fails this check"
else
	ktap_test_fail "a cover letter without ${first#* } fails this check"
fi
printf '%s\n' '+the settings live elsewhere, so that no exported' \
	"+symbol's CRC changes" > "$control"
if [ -n "$(distro_words "$control")" ]; then
	ktap_test_pass "a patch that keeps symbol CRCs fails the distribution check"
else
	ktap_test_fail "a patch that keeps symbol CRCs fails the distribution check"
fi
printf '%s\n' '=====  =====' 'policy   port' '=====  =====' 'rfc    1' '=====  =====' > "$control"
if ! rst_clean "$control" > /dev/null 2>&1; then
	ktap_test_pass "a table with text in its column margin fails the docutils check"
else
	ktap_test_fail "a table with text in its column margin fails the docutils check"
fi
ktap_finished
