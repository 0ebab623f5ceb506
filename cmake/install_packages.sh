# install_missing PACKAGE...: installs the Debian packages that are not installed, with apt-get,
# as root or through sudo (sourced by cmake/setup.sh and cmake/setup_web.sh).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "setup: need root or sudo to run: $*" >&2
        exit 1
    fi
}

install_missing() {
    # One dpkg-query for all packages: missing ones print nothing or a non-"installed" status.
    local installed missing=() p
    installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "$@" 2>/dev/null || true)
    for p in "$@"; do
        grep -qx "$p installed" <<<"$installed" || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    echo "setup: installing ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
