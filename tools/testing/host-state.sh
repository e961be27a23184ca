#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What make check must leave as it found it: the packages, and every file
# (type, mode, contents) under /etc, /boot and /lib/modules.  check.sh
# compares this before its jobs and after them.
dpkg-query -W -f='${db:Status-Abbrev} ${Package}:${Architecture} ${Version}\n' | sort
find /etc /boot /usr/lib/modules -xdev -printf '%p %y %m\n' 2> /dev/null | sort
find /etc /boot /usr/lib/modules -xdev -type f -print0 2> /dev/null | sort -z |
	xargs -0 -r sha256sum 2> /dev/null
