// Command stage2-noclone serves the user list API from the role index and
// encodes the stored users directly, without copying them. See docs/stage2-noclone.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("stage2-noclone", New) }
