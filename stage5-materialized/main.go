// Command stage5-materialized serves the user list from bytes encoded once,
// when each user is written: a read only concatenates them. See docs/stage5-materialized.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("stage5-materialized", New) }
