package scheduling

import (
	"fmt"
	"strings"
)

// CycleError is an internal error that aborts the hub agent's scheduling cycle: the scheduler logs
// it and retries with backoff, leaving bindings and the Scheduled condition as they were. The usual
// cause is a member cluster reporting a property value that is not a Quantity.
type CycleError struct {
	// Plugin is the scheduler plugin that failed (ClusterAffinity, TopologySpreadConstraints, ...).
	Plugin string
	// Err is the underlying cause.
	Err error
	// Reasons are the plugin's own words about the step that failed.
	Reasons []string
}

// Error words the failure as the hub agent logs it: "plugin X returned an error InternalError, ..."
// (pkg/scheduler/framework/status.go: Status.AsError).
func (e *CycleError) Error() string {
	desc := []string{"InternalError"}
	if e.Err != nil {
		desc = append(desc, e.Err.Error())
	}
	desc = append(desc, e.Reasons...)
	return fmt.Sprintf("plugin %s returned an error %s", e.Plugin, strings.Join(desc, ", "))
}

// Unwrap returns the cause.
func (e *CycleError) Unwrap() error { return e.Err }

func pluginError(plugin string, err error, reasons ...string) error {
	return &CycleError{Plugin: plugin, Err: err, Reasons: reasons}
}

// unschedulable words a filter's verdict as the policy snapshot's decision does:
// "ClusterUnschedulable, <reason>" (pkg/scheduler/framework/status.go: Status.String).
func unschedulable(reason string) string {
	return "ClusterUnschedulable, " + reason
}
