// Command stage2-noclone serves the user list API from the role index and
// encodes the stored users directly, without copying them. See README.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("stage2-noclone", New) }
