/* A stand-in libnvidia-ml.so.1 with the few symbols pynvml needs to read one GPU's fabric
 * info. nvmlDeviceGetGpuFabricInfo checks that its second argument is a pointer it can write
 * to (write(2) to /dev/null fails with EFAULT on an address that is not mapped), as the real
 * library dereferences it: a struct passed by value leaves garbage in that register. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

typedef struct { unsigned char clusterUuid[16]; unsigned int status; unsigned int cliqueId; unsigned int state; } fabric_t;

static int handle_marker = 42;

int nvmlInitWithFlags(unsigned int flags) { (void)flags; return 0; }
int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int r) { return r == 2 ? "Invalid Argument" : "Unknown Error"; }
int nvmlDeviceGetCount_v2(unsigned int *count) { *count = 1; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device) {
    if (index != 0) return 2;
    *device = &handle_marker;
    return 0;
}

static int writable(const void *p, size_t n) {
    int fd = open("/dev/null", O_WRONLY);
    if (fd < 0) return 0;
    ssize_t w = write(fd, p, n);
    close(fd);
    return w == (ssize_t)n;
}

int nvmlDeviceGetGpuFabricInfo(void *device, fabric_t *info) {
    if (device != &handle_marker) return 2;       /* NVML_ERROR_INVALID_ARGUMENT */
    if (info == NULL || !writable(info, sizeof *info)) return 2;
    memset(info->clusterUuid, 0xab, sizeof info->clusterUuid);
    info->status = 0;   /* NVML_SUCCESS */
    info->cliqueId = 7;
    info->state = 3;    /* NVML_GPU_FABRIC_STATE_COMPLETED */
    return 0;
}
