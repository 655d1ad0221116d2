package sharedtest

import "testing"

// As returns v as a T, failing the test when it is not one: a checked read of a computed value.
func As[T any](t testing.TB, v any) T {
	t.Helper()
	x, ok := v.(T)
	if !ok {
		t.Fatalf("%v is a %T, not a %T", v, v, x)
	}
	return x
}
