// Command stage6-blocks serves the user list from bytes encoded once and
// kept in blocks per role: a read copies a few blocks. See docs/stage6-blocks.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("stage6-blocks", New) }
