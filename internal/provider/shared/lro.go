package shared

import (
	"context"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// lroFrequency is how often a long-running operation is polled when the
// service sends no Retry-After (the Fleet API, and the emulator, send one).
const lroFrequency = 2 * time.Second

// PollDone waits for a long-running operation begun with err; the poll interval is the
// service's Retry-After, else lroFrequency.
func PollDone[T any](ctx context.Context, p *runtime.Poller[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	v, err := p.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: lroFrequency})
	if err != nil {
		return nil, err
	}
	return &v, nil
}
