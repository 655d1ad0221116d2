package localfleet

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// childPIDs lists the children of parent whose command name is one of names,
// read from /proc.
func childPIDs(parent int, names ...string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// stat: pid (comm) state ppid ...; comm may hold spaces, so split after ')'.
		s := string(b)
		open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || closing < 0 {
			continue
		}
		comm := s[open+1 : closing]
		fields := strings.Fields(s[closing+1:])
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		if ppid != parent {
			continue
		}
		for _, n := range names {
			if strings.HasPrefix(n, comm) || comm == n {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// Processes is what fleet-down needs to leave nothing behind: the localfleet
// process itself and every server it started.
type Processes struct {
	Supervisor int   `json:"supervisor"`
	Children   []int `json:"children"`
}

const pidsFile = "pids.json"

func writeProcesses(dir string, p Processes) error {
	b, _ := json.Marshal(p)
	return os.WriteFile(filepath.Join(dir, pidsFile), b, 0o600)
}

// Stop ends the local fleet recorded in dir: SIGTERM to the supervisor (which
// stops its servers in order), then SIGKILL to anything still alive, also
// when the supervisor itself died without cleaning up.
func Stop(dir string, grace time.Duration) error {
	b, err := os.ReadFile(filepath.Join(dir, pidsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var p Processes
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	all := append([]int{p.Supervisor}, p.Children...)
	if p.Supervisor > 0 && Alive(p.Supervisor) {
		_ = syscall.Kill(p.Supervisor, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) && anyAlive(all) {
		time.Sleep(100 * time.Millisecond)
	}
	for _, pid := range all {
		if pid > 0 && Alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	for i := 0; i < 50 && anyAlive(all); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if anyAlive(all) {
		return errors.New("some local fleet processes survived SIGKILL")
	}
	if err := os.Remove(filepath.Join(dir, pidsFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

func anyAlive(pids []int) bool {
	for _, pid := range pids {
		if pid > 0 && Alive(pid) {
			return true
		}
	}
	return false
}

// Alive treats zombies as gone: they hold no resources and vanish once their
// parent reaps them.
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
