// Command stage3-parallel serves the user list API from the role index with
// a hand-written JSON encoder that appends into reused, pre-sized buffers,
// in parallel chunks for large results. See README.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("stage3-parallel", New) }
