package localfleet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// HubScheme knows the core types and KubeFleet's cluster and placement APIs.
func HubScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = clusterv1.AddToScheme(s)
	_ = placementv1.AddToScheme(s)
	return s
}

// hubAgent is KubeFleet's real hub agent, scheduling placements on the hub.
type hubAgent struct {
	cmd  *exec.Cmd
	done chan error
}

// startHubAgent runs the hub agent with its webhook off (there is no
// in-cluster service to route it) and loopback-only probes.
func startHubAgent(cfg Config, hub *apiServer, members int) (*hubAgent, error) {
	// The hub agent keeps leases and events in fleet-system.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fleet-system"}}
	if err := hub.client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(cfg.Dir, "hubagent.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(cfg.BinDir, "hubagent"),
		"--kubeconfig="+hub.kubeconfigPath(cfg.Dir),
		"--enable-webhook=false",
		"--leader-elect=false",
		"--health-probe-bind-address=0",
		"--metrics-bind-address=0",
		// The hub agent sizes its controllers' concurrency by the fleet
		// (cmd/hubagent/main.go: one membercluster reconciler per 100 members);
		// v0.18.9 accepts 30 to 200 (cmd/hubagent/options/placementmgmt.go).
		fmt.Sprintf("--max-fleet-size=%d", min(200, max(30, members))),
		"--hub-api-qps=500",
		"--v=2",
	)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Dies with the supervisor, even when the supervisor is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start hub agent %s: %w", cmd.Path, err)
	}
	a := &hubAgent{cmd: cmd, done: make(chan error, 1)}
	go func() { a.done <- cmd.Wait(); logf.Close() }()
	return a, nil
}

func (a *hubAgent) stop() {
	if a == nil || a.cmd.Process == nil {
		return
	}
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
		_ = a.cmd.Process.Kill()
		<-a.done
	}
}
