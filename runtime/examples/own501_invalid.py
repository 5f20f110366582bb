"""OWN501 capsule-reused: a dpctl queue capsule given to two consumers."""

import dpctl

queue = dpctl.SyclQueue()
capsule = queue._get_capsule()
first = dpctl.SyclQueue(capsule)  # renames the capsule "used_SyclQueueRef"
second = dpctl.SyclQueue(capsule)  # E: OWN501
print("second consumer got", second)
