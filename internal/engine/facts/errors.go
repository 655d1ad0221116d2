package facts

// NotReadError says the facts lack what a preview needs.
type NotReadError struct{ What string }

func (e *NotReadError) Error() string {
	return "data.fleet_facts did not read " + e.What
}
