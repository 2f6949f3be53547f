#!/bin/sh
# The shell npm runs this project's scripts, and its dependencies' install scripts, with
# (.npmrc: script-shell). better-sqlite3's install builds its addon with node-gyp when no
# prebuilt binary can be downloaded, and node-gyp would then download Node's headers from
# nodejs.org: on a machine that reaches only the npm registry the install fails. The Node
# packages (NodeSource's, Debian's libnode-dev, the official tarball) put the headers beside
# the binary, in <prefix>/include/node: name that prefix to node-gyp (npm_config_nodedir),
# unless a nodedir is already configured. (npm's own `node-gyp` setting would be the natural
# place, but `npm ci` does not pass it to dependencies' scripts; `script-shell` it does.)
if [ -z "${npm_config_nodedir:-}" ]; then
  node_bin=${npm_node_execpath:-$(command -v node)}
  if [ -n "$node_bin" ]; then
    prefix=$(dirname "$(dirname "$(readlink -f "$node_bin")")")
    if [ -f "$prefix/include/node/node.h" ]; then
      npm_config_nodedir=$prefix
      export npm_config_nodedir
    fi
  fi
fi
exec /bin/sh "$@"
