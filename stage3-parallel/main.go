// Command stage3-parallel serves the user list encoded by encoding/json into
// a reserved, reused body, large results in parallel chunks. See docs/stage3-parallel.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("stage3-parallel", New) }
