package kubetest

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const hostIP = "127.0.0.1"

// runningStatus is what a kubelet reports once every container started and
// passed readiness.
func runningStatus(pod *corev1.Pod, ip string) {
	now := metav1.Now()
	pod.Status.Phase = corev1.PodRunning
	pod.Status.HostIP = hostIP
	pod.Status.HostIPs = []corev1.HostIP{{IP: hostIP}}
	pod.Status.PodIP = ip
	pod.Status.PodIPs = []corev1.PodIP{{IP: ip}}
	if pod.Status.StartTime == nil {
		pod.Status.StartTime = &now
	}
	for _, t := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		setPodCondition(pod, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue})
	}
	pod.Status.ContainerStatuses = nil
	for _, c := range pod.Spec.Containers {
		started := true
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{
			Name:        c.Name,
			Image:       c.Image,
			ImageID:     c.Image,
			ContainerID: containerID(pod, c.Name),
			Ready:       true,
			Started:     &started,
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
	}
}

// waitingStatus is a bound Pod whose containers cannot start, e.g. an image
// that cannot be pulled.
func waitingStatus(pod *corev1.Pod, failure podFailure) {
	pod.Status.Phase = corev1.PodPending
	pod.Status.HostIP = hostIP
	pod.Status.HostIPs = []corev1.HostIP{{IP: hostIP}}
	if pod.Status.StartTime == nil {
		now := metav1.Now()
		pod.Status.StartTime = &now
	}
	setPodCondition(pod, corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionTrue})
	notReady := fmt.Sprintf("containers with unready status: %s", containerNames(pod))
	for _, t := range []corev1.PodConditionType{corev1.ContainersReady, corev1.PodReady} {
		setPodCondition(pod, corev1.PodCondition{Type: t, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: notReady})
	}
	pod.Status.ContainerStatuses = nil
	for _, c := range pod.Spec.Containers {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{
			Name:  c.Name,
			Image: c.Image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: failure.reason, Message: failure.message}},
		})
	}
}

// exitedStatus is a Pod whose containers ended with exit code 1.
func exitedStatus(pod *corev1.Pod) {
	now := metav1.Now()
	terminated := &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: now}
	notReady := fmt.Sprintf("containers with unready status: %s", containerNames(pod))
	for _, t := range []corev1.PodConditionType{corev1.ContainersReady, corev1.PodReady} {
		setPodCondition(pod, corev1.PodCondition{Type: t, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", Message: notReady})
	}
	restart := pod.Spec.RestartPolicy != corev1.RestartPolicyNever
	if !restart {
		pod.Status.Phase = corev1.PodFailed
	}
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		if cs.State.Running != nil {
			terminated.StartedAt = cs.State.Running.StartedAt
		}
		cs.Ready = false
		started := false
		cs.Started = &started
		if restart {
			cs.LastTerminationState = corev1.ContainerState{Terminated: terminated.DeepCopy()}
			cs.RestartCount++
			cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason:  "CrashLoopBackOff",
				Message: fmt.Sprintf("back-off 10s restarting failed container=%s pod=%s_%s(%s)", cs.Name, pod.Name, pod.Namespace, pod.UID),
			}}
		} else {
			cs.State = corev1.ContainerState{Terminated: terminated.DeepCopy()}
		}
	}
}

func setPodCondition(pod *corev1.Pod, cond corev1.PodCondition) {
	now := metav1.Now()
	for i := range pod.Status.Conditions {
		existing := &pod.Status.Conditions[i]
		if existing.Type != cond.Type {
			continue
		}
		if existing.Status != cond.Status {
			existing.LastTransitionTime = now
		}
		existing.Status, existing.Reason, existing.Message = cond.Status, cond.Reason, cond.Message
		existing.LastProbeTime = metav1.Time{}
		return
	}
	cond.LastTransitionTime = now
	pod.Status.Conditions = append(pod.Status.Conditions, cond)
}

func containerID(pod *corev1.Pod, container string) string {
	return fmt.Sprintf("kubetest://%s/%s", pod.UID, container)
}

func containerNames(pod *corev1.Pod) string {
	names := "["
	for i, c := range pod.Spec.Containers {
		if i > 0 {
			names += " "
		}
		names += c.Name
	}
	return names + "]"
}

// isWaiting reports whether the Pod's containers already wait for failure.
func isWaiting(pod *corev1.Pod, failure podFailure) bool {
	if len(pod.Status.ContainerStatuses) == 0 {
		return false
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w == nil || w.Reason != failure.reason || w.Message != failure.message {
			return false
		}
	}
	return true
}

// isUnschedulable reports whether the Pod is already marked unschedulable
// for failure.
func isUnschedulable(pod *corev1.Pod, failure podFailure) bool {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled {
			return cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable && cond.Message == failure.message
		}
	}
	return false
}
