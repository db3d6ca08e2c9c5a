// Command floor serves the user list API from pre-built bodies: the limit of
// the HTTP path that every stage shares. scripts/load.sh serves it beside the
// stages; see package example.com/userperf/common/floor.
package main

import (
	"example.com/userperf/common/api"
	"example.com/userperf/common/floor"
)

func main() { api.Main("floor", floor.New) }
