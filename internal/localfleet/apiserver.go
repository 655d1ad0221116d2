package localfleet

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// apiServer is one real kube-apiserver with its own etcd, started by envtest
// from the binaries in Config.AssetsDir.
type apiServer struct {
	name       string
	env        *envtest.Environment
	admin      *rest.Config
	kubeconfig []byte // admin credentials, written to <dir>/<name>.kubeconfig
	client     client.Client

	mu            sync.Mutex
	args          []string // the killed kube-apiserver's command line while it is down
	restarted     *exec.Cmd
	restartedDone chan struct{}
}

func startAPIServer(cfg Config, name string, crdDirs []string, scheme *runtime.Scheme) (*apiServer, error) {
	env := &envtest.Environment{
		BinaryAssetsDirectory: cfg.AssetsDir,
		CRDDirectoryPaths:     crdDirs,
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
	}
	if _, err := env.Start(); err != nil {
		return nil, fmt.Errorf("start %s kube-apiserver: %w", name, err)
	}
	s := &apiServer{name: name, env: env}
	// An admin user with a client certificate: the kubeconfig the Fleet API
	// hands out (listCredentials) and the hub agent use.
	// client-go's default 5 requests/s would make a few hundred members take
	// minutes to join and a heartbeat round far longer than its period. On
	// loopback the member agents' bounded pool, not this limiter, paces them.
	base := &rest.Config{QPS: 2000, Burst: 2000}
	user, err := env.ControlPlane.AddUser(envtest.User{Name: name + "-admin", Groups: []string{"system:masters"}}, base)
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("%s admin user: %w", name, err)
	}
	if s.kubeconfig, err = user.KubeConfig(); err != nil {
		s.stop()
		return nil, err
	}
	s.admin = user.Config()
	if s.client, err = client.New(s.admin, client.Options{Scheme: scheme}); err != nil {
		s.stop()
		return nil, err
	}
	if err := os.WriteFile(s.kubeconfigPath(cfg.Dir), s.kubeconfig, 0o600); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *apiServer) kubeconfigPath(dir string) string {
	return filepath.Join(dir, s.name+".kubeconfig")
}

func (s *apiServer) stop() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.restarted != nil {
		_ = s.restarted.Process.Kill()
		<-s.restartedDone
	}
	s.mu.Unlock()
	if s.env != nil {
		_ = s.env.Stop()
	}
}

// The admin API takes a kube-apiserver down and brings it back, as a crash
// and a restart of the real server would: the process is killed, and the
// same command line (port, certificates, etcd) is run again.

// process finds this server's kube-apiserver: a child of this process whose
// command line serves the admin config's port.
func (s *apiServer) process() (int, []string, error) {
	u, err := url.Parse(s.admin.Host)
	if err != nil {
		return 0, nil, err
	}
	for _, pid := range childPIDs(os.Getpid(), "kube-apiserver") {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		for _, a := range args {
			if a == "--secure-port="+u.Port() {
				return pid, args, nil
			}
		}
	}
	return 0, nil, fmt.Errorf("%s: no kube-apiserver process serves port %s", s.name, u.Port())
}

// down kills the server's kube-apiserver; clients then get connection refused.
func (s *apiServer) down() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.args != nil {
		return fmt.Errorf("%s is down already", s.name)
	}
	pid, args, err := s.process()
	if err != nil {
		return err
	}
	if s.restarted != nil && s.restarted.Process.Pid == pid {
		_ = s.restarted.Process.Kill()
		<-s.restartedDone
		s.restarted = nil
	} else if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return err
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for Alive(pid) {
		select {
		case <-deadline:
			return fmt.Errorf("%s: kube-apiserver %d did not exit", s.name, pid)
		case <-tick.C:
		}
	}
	s.args = args
	return nil
}

// up runs the killed kube-apiserver again and returns once it is ready.
func (s *apiServer) up(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.args == nil {
		return fmt.Errorf("%s is not down", s.name)
	}
	// The killed server's port can stay bound for a moment: a start that
	// exits at once is tried again, within the readiness bound below.
	var out bytes.Buffer
	args := s.args
	start := func() (chan struct{}, error) {
		out.Reset()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("%s: restart kube-apiserver: %w", s.name, err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		s.restarted, s.restartedDone = cmd, done
		return done, nil
	}
	done, err := start()
	if err != nil {
		return err
	}
	s.args = nil
	cs, err := kubernetes.NewForConfig(s.admin)
	if err != nil {
		return err
	}
	rc := cs.Discovery().RESTClient()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	exited, last := false, ""
	for {
		if !exited {
			if err := rc.Get().AbsPath("/readyz").Do(ctx).Error(); err == nil {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			s.args = args // still down: up may be asked again
			return fmt.Errorf("%s: kube-apiserver not ready after its restart: %w; its last output: %s", s.name, ctx.Err(), tail(last, 2000))
		case <-done:
			exited, last = true, out.String()
			done = nil
		case <-tick.C:
			if exited {
				if done, err = start(); err != nil {
					return err
				}
				exited = false
			}
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
