-- Nsight Systems 2025.1.1 SQLite export (schema 3.17.1): DDL and ENUM rows copied verbatim from a real
-- export (shared/captures/fuser_h200_crossentropy_2025_1.sqlite) by samples.generate_capture --dump-schema.
CREATE TABLE StringIds (
    -- Consolidation of repetitive string values.

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    value                       TEXT      NOT NULL                     -- String value.
);
CREATE TABLE TARGET_INFO_SYSTEM_ENV (
    globalVid                   INTEGER,                               -- Serialized GlobalId.
    devStateName                TEXT      NOT NULL,                    -- Device state name.
    name                        TEXT      NOT NULL,                    -- Property name.
    nameEnum                    INTEGER   NOT NULL,                    -- Property enum value.
    value                       TEXT      NOT NULL                     -- Property value.
);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (
    utcEpochNs                  INTEGER,                               -- UTC Epoch timestamp at start of the capture (ns).
    utcTime                     TEXT,                                  -- Start of the capture in UTC.
    localTime                   TEXT                                   -- Start of the capture in local time of target.
);
CREATE TABLE ANALYSIS_DETAILS (
    -- Details about the analysis session.

    globalVid                   INTEGER   NOT NULL,                    -- Serialized GlobalId.
    duration                    INTEGER   NOT NULL,                    -- The total time span of the entire trace (ns).
    startTime                   INTEGER   NOT NULL,                    -- Trace start timestamp in nanoseconds.
    stopTime                    INTEGER   NOT NULL                     -- Trace stop timestamp in nanoseconds.
);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name
    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.
    callchainId                 INTEGER                                -- REFERENCES CUDA_CALLCHAINS(id)
);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates
    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name
    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name
    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KERNEL_LAUNCH_TYPE(id)
    cacheConfig                 INTEGER,                               -- REFERENCES ENUM_CUDA_FUNC_CACHE_CONFIG(id)
    registersPerThread          INTEGER   NOT NULL,                    -- Number of registers required for each thread executing the kernel.
    gridX                       INTEGER   NOT NULL,                    -- X-dimension grid size.
    gridY                       INTEGER   NOT NULL,                    -- Y-dimension grid size.
    gridZ                       INTEGER   NOT NULL,                    -- Z-dimension grid size.
    blockX                      INTEGER   NOT NULL,                    -- X-dimension block size.
    blockY                      INTEGER   NOT NULL,                    -- Y-dimension block size.
    blockZ                      INTEGER   NOT NULL,                    -- Z-dimension block size.
    staticSharedMemory          INTEGER   NOT NULL,                    -- Static shared memory allocated for the kernel (B).
    dynamicSharedMemory         INTEGER   NOT NULL,                    -- Dynamic shared memory reserved for the kernel (B).
    localMemoryPerThread        INTEGER   NOT NULL,                    -- Amount of local memory reserved for each thread (B).
    localMemoryTotal            INTEGER   NOT NULL,                    -- Total amount of local memory reserved for the kernel (B).
    gridId                      INTEGER   NOT NULL,                    -- Unique grid ID of the kernel assigned at runtime.
    sharedMemoryExecuted        INTEGER,                               -- Shared memory size set by the driver.
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    sharedMemoryLimitConfig     INTEGER                                -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)
);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes transferred (B).
    copyKind                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUDA_MEMCPY_OPER(id)
    deprecatedSrcId             INTEGER,                               -- Deprecated, use srcDeviceId instead.
    srcKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    dstKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    srcDeviceId                 INTEGER,                               -- Source device ID.
    srcContextId                INTEGER,                               -- Source context ID.
    dstDeviceId                 INTEGER,                               -- Destination device ID.
    dstContextId                INTEGER,                               -- Destination context ID.
    migrationCause              INTEGER,                               -- REFERENCES ENUM_CUDA_UNIF_MEM_MIGRATION(id)
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    virtualAddress              INTEGER                                -- Virtual base address of the page/s being transferred.
);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- Correlation ID of the synchronization API to which this result is associated.
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    deprecatedSyncType          INTEGER,                               -- Deprecated, use syncType instead. For older report, REFERENCES ENUM_CUPTI_SYNC_TYPE(id)
    syncType                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUPTI_SYNC_TYPE(id)
    eventId                     INTEGER   NOT NULL,                    -- Event ID for which the synchronization API is called.
    eventSyncId                 INTEGER                                -- CUDA Event Sync ID to link the synchronization API to associated event record API.
);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    value                       INTEGER   NOT NULL,                    -- Value assigned to memory.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes set (B).
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    memKind                     INTEGER                                -- REFERENCES ENUM_CUDA_MEM_KIND(id)
);
CREATE TABLE NVTX_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER,                               -- Event end timestamp (ns).
    eventType                   INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_TYPE(id)
    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.
    category                    INTEGER,                               -- User-controlled ID that can be used to group events.
    color                       INTEGER,                               -- Encoded ARGB color value.
    text                        TEXT,                                  -- Explicit name/text (non-registered string)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    endGlobalTid                INTEGER,                               -- Serialized GlobalId.
    textId                      INTEGER,                               -- REFERENCES StringIds(id) -- Registered NVTX domain/string
    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.
    uint64Value                 INTEGER,                               -- One of possible payload value union members.
    int64Value                  INTEGER,                               -- One of possible payload value union members.
    doubleValue                 REAL,                                  -- One of possible payload value union members.
    uint32Value                 INTEGER,                               -- One of possible payload value union members.
    int32Value                  INTEGER,                               -- One of possible payload value union members.
    floatValue                  REAL,                                  -- One of possible payload value union members.
    jsonTextId                  INTEGER,                               -- One of possible payload value union members.
    jsonText                    TEXT,                                  -- One of possible payload value union members.
    binaryData                  TEXT                                   -- Binary payload. See docs for format.
);
CREATE TABLE PROCESSES (
    -- Names and identifiers of processes captured in the report.

    globalPid                   INTEGER,                               -- Serialized GlobalId.
    pid                         INTEGER,                               -- The process ID.
    name                        TEXT                                   -- The process name.
);
CREATE TABLE ThreadNames (
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Thread name
    priority                    INTEGER,                               -- Priority of the thread.
    globalTid                   INTEGER                                -- Serialized GlobalId.
);
CREATE TABLE TARGET_INFO_GPU (
    vmId                        INTEGER   NOT NULL,                    -- Serialized GlobalId.
    id                          INTEGER   NOT NULL,                    -- Device ID.
    name                        TEXT,                                  -- Device name.
    busLocation                 TEXT,                                  -- PCI bus location.
    isDiscrete                  INTEGER,                               -- True if discrete, false if integrated.
    l2CacheSize                 INTEGER,                               -- Size of L2 cache (B).
    totalMemory                 INTEGER,                               -- Total amount of memory on the device (B).
    memoryBandwidth             INTEGER,                               -- Amount of memory transferred (B).
    clockRate                   INTEGER,                               -- Clock frequency (Hz).
    smCount                     INTEGER,                               -- Number of multiprocessors on the device.
    pwGpuId                     INTEGER,                               -- PerfWorks GPU ID.
    uuid                        TEXT,                                  -- Device UUID.
    luid                        INTEGER,                               -- Device LUID.
    chipName                    TEXT,                                  -- Chip name.
    cuDevice                    INTEGER,                               -- CUDA device ID.
    ctxswDevPath                TEXT,                                  -- GPU context switch device node path.
    ctrlDevPath                 TEXT,                                  -- GPU control device node path.
    revision                    INTEGER,                               -- Revision number.
    nodeMask                    INTEGER,                               -- Device node mask.
    constantMemory              INTEGER,                               -- Memory available on device for __constant__ variables (B).
    maxIPC                      INTEGER,                               -- Maximum instructions per count.
    maxRegistersPerBlock        INTEGER,                               -- Maximum number of 32-bit registers available per block.
    maxShmemPerBlock            INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerBlockOptin       INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerSm               INTEGER,                               -- Maximum shared memory available per multiprocessor (B).
    maxRegistersPerSm           INTEGER,                               -- Maximum number of 32-bit registers available per multiprocessor.
    threadsPerWarp              INTEGER,                               -- Warp size in threads.
    asyncEngines                INTEGER,                               -- Number of asynchronous engines.
    maxWarpsPerSm               INTEGER,                               -- Maximum number of warps per multiprocessor.
    maxBlocksPerSm              INTEGER,                               -- Maximum number of blocks per multiprocessor.
    maxThreadsPerBlock          INTEGER,                               -- Maximum number of threads per block.
    maxBlockDimX                INTEGER,                               -- Maximum X-dimension of a block.
    maxBlockDimY                INTEGER,                               -- Maximum Y-dimension of a block.
    maxBlockDimZ                INTEGER,                               -- Maximum Z-dimension of a block.
    maxGridDimX                 INTEGER,                               -- Maximum X-dimension of a grid.
    maxGridDimY                 INTEGER,                               -- Maximum Y-dimension of a grid.
    maxGridDimZ                 INTEGER,                               -- Maximum Z-dimension of a grid.
    computeMajor                INTEGER,                               -- Major compute capability version number.
    computeMinor                INTEGER,                               -- Minor compute capability version number.
    smMajor                     INTEGER,                               -- Major multiprocessor version number.
    smMinor                     INTEGER                                -- Minor multiprocessor version number.
);
CREATE TABLE TARGET_INFO_CUDA_DEVICE (
    gpuId                       INTEGER,                               -- GPU ID.
    cudaId                      INTEGER   NOT NULL,                    -- CUDA device ID.
    pid                         INTEGER   NOT NULL                     -- Process ID.
);
CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (
    nullStreamId                INTEGER   NOT NULL,                    -- Stream ID.
    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
    vmId                        INTEGER   NOT NULL,                    -- VM ID.
    processId                   INTEGER   NOT NULL,                    -- Process ID.
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    parentContextId             INTEGER,                               -- For green context, this is the parent context id.
    isGreenContext              INTEGER                                -- Is this a Green Context?
);
CREATE TABLE TARGET_INFO_CUDA_STREAM (
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
    vmId                        INTEGER   NOT NULL,                    -- VM ID.
    processId                   INTEGER   NOT NULL,                    -- Process ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    priority                    INTEGER   NOT NULL,                    -- Priority of the stream.
    flag                        INTEGER   NOT NULL                     -- REFERENCES ENUM_CUPTI_STREAM_TYPE(id)
);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (
    -- Nsys event type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(0,'Unknown','Unknown');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(1,'CpuCycles','CpuCycles');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(2,'Instructions','Instructions');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(3,'CacheReferences','CacheReferences');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(4,'L1CacheDataWriteMisses','L1CacheDataWriteMisses');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(5,'L1CacheDataReadMisses','L1CacheDataReadMisses');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(6,'L1CacheInstructionMisses','L1CacheInstructionMisses');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(7,'L2CacheDataWriteMisses','L2CacheDataWriteMisses');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(8,'L2CacheDataReadMisses','L2CacheDataReadMisses');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(9,'L2CacheInstructionMisses','L2CacheInstructionMisses');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(10,'BranchInstructions','BranchInstructions');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(11,'BranchMisses','BranchMisses');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(12,'BusCycles','BusCycles');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(13,'CpuClock','CpuClock');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(14,'TaskClock','TaskClock');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(15,'PageFault','PageFault');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(16,'ContextSwitches','ContextSwitches');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(17,'CpuMigrations','CpuMigrations');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(18,'PageFaultsMin','PageFaultsMin');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(19,'PageFaultsMax','PageFaultsMax');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(20,'AlignmentFaults','AlignmentFaults');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(21,'EmulationFaults','EmulationFaults');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(22,'ThreadState','ThreadState');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(23,'Frames','Frames');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(24,'Annotations','Annotations');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(25,'SchedSwitch','SchedSwitch');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(26,'SchedWakeup','SchedWakeup');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(27,'Command','Command');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(28,'Mmap','Mmap');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(29,'MemUsage','MemUsage');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(30,'Emc','Emc');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(31,'Composite','Composite');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(32,'NvtxEvents','NvtxEvents');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(33,'NvtxCategory','NvtxCategory');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(34,'NvtxMark','NvtxMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(35,'NvtxPushRange','NvtxPushRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(36,'NvtxPopRange','NvtxPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(37,'NvtxStartRange','NvtxStartRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(38,'NvtxEndRange','NvtxEndRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(39,'NvtxThread','NvtxThread');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(40,'PowerRate','PowerRate');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(41,'Sched','Sched');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(42,'CpuCyclesSelf','CpuCyclesSelf');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(43,'CpuCyclesTotal','CpuCyclesTotal');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(44,'CpuCyclesSelfPlus','CpuCyclesSelfPlus');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(45,'Cuda','Cuda');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(46,'CudaDevice','CudaDevice');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(47,'TraceProcess','TraceProcess');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(48,'TraceFunctions','TraceFunctions');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(49,'Diagnostic','Diagnostic');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(50,'GlWorkload','GlWorkload');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(51,'BandwidthUsage','BandwidthUsage');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(52,'KhrDebugMark','KhrDebugMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(53,'KhrDebugPushRange','KhrDebugPushRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(54,'KhrDebugPopRange','KhrDebugPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(55,'KhrDebugGpuMark','KhrDebugGpuMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(56,'KhrDebugGpuPushRange','KhrDebugGpuPushRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(57,'KhrDebugGpuPopRange','KhrDebugGpuPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(58,'GpuCtxsw','GpuCtxsw');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(59,'NvtxPushPopRange','NvtxPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(60,'NvtxStartEndRange','NvtxStartEndRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(61,'ProfTime','ProfTime');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(62,'KhrDebugPushPopRange','KhrDebugPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(63,'KhrDebugGpuPushPopRange','KhrDebugGpuPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(64,'NvtxtCategory','NvtxtCategory');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(65,'NvtxtMark','NvtxtMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(66,'NvtxtPushRange','NvtxtPushRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(67,'NvtxtPopRange','NvtxtPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(68,'NvtxtStartRange','NvtxtStartRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(69,'NvtxtEndRange','NvtxtEndRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(70,'NvtxtPushPopRange','NvtxtPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(71,'NvtxtStartEndRange','NvtxtStartEndRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(72,'NvtxtMetaThread','NvtxtMetaThread');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(73,'NvtxtMetaProcess','NvtxtMetaProcess');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(74,'NvtxtMetaFileDisplay','NvtxtMetaFileDisplay');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(75,'NvtxDomainCreate','NvtxDomainCreate');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(76,'NvtxDomainDestroy','NvtxDomainDestroy');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(77,'NvnGpuCmdBuf','NvnGpuCmdBuf');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(78,'TraceVSync','TraceVSync');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(79,'CudaDeviceKernel','CudaDeviceKernel');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(80,'CudaDeviceMemory','CudaDeviceMemory');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(81,'Pmu','Pmu');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(82,'NvnGpuDraw','NvnGpuDraw');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(83,'NvnGpuCompute','NvnGpuCompute');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(84,'NvnGpuDebug','NvnGpuDebug');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(85,'OS runtime libraries','OS runtime libraries');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(86,'CuDNN','CuDNN');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(87,'CuBLAS','CuBLAS');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(88,'NvMedia','NvMedia');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(89,'OpenACC','OpenACC');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(90,'Correlation','Correlation');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(91,'DX12','DX12');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(92,'DX12Workload','DX12Workload');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(93,'PmuRawEvent','PmuRawEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(94,'GraphicsFrame','GraphicsFrame');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(95,'Vulkan','Vulkan');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(96,'VulkanWorkload','VulkanWorkload');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(97,'NvtxNameCudaDevice','NvtxNameCudaDevice');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(98,'NvtxNameCudaContext','NvtxNameCudaContext');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(99,'NvtxNameCudaStream','NvtxNameCudaStream');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(100,'SystemEvent','SystemEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(101,'GpuMemoryEvent','GpuMemoryEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(102,'DX12CreateObject','DX12CreateObject');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(103,'VulkanCreateObject','VulkanCreateObject');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(104,'UnitTraceEvent','UnitTraceEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(105,'CustomETWEvent','CustomETWEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(106,'CudaSyncEvent','CudaSyncEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(107,'SLIEvent','SLIEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(108,'CudaBacktrace','CudaBacktrace');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(109,'WddmEvent','WddmEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(110,'DX11','DX11');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(111,'DX11CreateObject','DX11CreateObject');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(112,'DXGI','DXGI');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(113,'CudaGraphNodeCreation','CudaGraphNodeCreation');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(114,'OpenMP','OpenMP');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(115,'UncorePmuEvent','UncorePmuEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(116,'UncorePmuCarmel','UncorePmuCarmel');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(117,'CudaDeviceMemoryUsage','CudaDeviceMemoryUsage');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(118,'ETWDxgKrnlEvent','ETWDxgKrnlEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(119,'CudaUvmCpuPageFaultEvent','CudaUvmCpuPageFaultEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(120,'CudaUvmGpuPageFaultEvent','CudaUvmGpuPageFaultEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(121,'NICMetricsValuesEvent','NICMetricsValuesEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(122,'NICMetricsListEvent','NICMetricsListEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(123,'InterruptHandler','InterruptHandler');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(124,'NVENC','NVENC');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(125,'NVDEC','NVDEC');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(126,'nvJPEG','nvJPEG');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(127,'CudaEventRecord','CudaEventRecord');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(128,'PerfEventCountEvent','PerfEventCountEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(129,'CudaDeviceMemoryPool','CudaDeviceMemoryPool');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(130,'CudaDeviceGraph','CudaDeviceGraph');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(131,'CudaGraphExecCreation','CudaGraphExecCreation');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(132,'CudaGraphCreation','CudaGraphCreation');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(133,'CudaGraphClone','CudaGraphClone');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(134,'GpuMemoryTransferEvent','GpuMemoryTransferEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(135,'GlTrace','GlTrace');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(136,'GpuVideoEngineWorkload','GpuVideoEngineWorkload');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(137,'IBSwitchMetricsValuesEvent','IBSwitchMetricsValuesEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(138,'GenericEvent','GenericEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(139,'UncorePmuT23xScf','UncorePmuT23xScf');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(140,'UncorePmuT23xDsu','UncorePmuT23xDsu');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(141,'IBSwitchCongestionEvent','IBSwitchCongestionEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(142,'CudaDeviceMemcpy','CudaDeviceMemcpy');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(143,'PerfMetricValueEvent','PerfMetricValueEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(144,'OpenXREvent','OpenXREvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(145,'TegraInternalEvent','TegraInternalEvent');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(146,'OSRuntimeStartStop','OSRuntimeStartStop');
CREATE TABLE ENUM_NSYS_EVENT_CLASS (
    -- Nsys event class labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(0,'TRACE_PROCESS_EVENT_CUDA_RUNTIME','CUDA runtime');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(1,'TRACE_PROCESS_EVENT_CUDA_DRIVER','CUDA driver');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(2,'TRACE_PROCESS_EVENT_GL','GL');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(3,'TRACE_PROCESS_EVENT_TSP_OVERHEAD','TSP overhead');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(4,'TRACE_PROCESS_EVENT_GL_DEBUG','GL debug');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(5,'TRACE_PROCESS_EVENT_GL_WORKLOAD','GL workload');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(6,'TRACE_PROCESS_EVENT_NVTX_START','NVTX start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(7,'TRACE_PROCESS_EVENT_NVTX_FINISH','NVTX finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(8,'TRACE_PROCESS_EVENT_GL_START','GL start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(9,'TRACE_PROCESS_EVENT_GL_FINISH','GL finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(10,'TRACE_PROCESS_EVENT_CUDA_START','CUDA start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(11,'TRACE_PROCESS_EVENT_CUDA_FINISH','CUDA finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(12,'TRACE_PROCESS_EVENT_CUDA_INIT_ERROR','CUDA init error');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(13,'TRACE_PROCESS_EVENT_CUDA_EGL_DRIVER','CUDA EGL driver');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(18,'TRACE_PROCESS_EVENT_VSYNC','Vsync');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(26,'TRACE_PROCESS_EVENT_CUDA_API','CUDA API');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(27,'TRACE_PROCESS_EVENT_OS_RUNTIME','OSRT runtime');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(28,'TRACE_PROCESS_EVENT_CUDNN','cuDNN');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(29,'TRACE_PROCESS_EVENT_CUBLAS','cuBLAS');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(31,'TRACE_PROCESS_EVENT_OS_RUNTIME_START','OSRT start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(32,'TRACE_PROCESS_EVENT_OS_RUNTIME_FINISH','OSRT finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(33,'TRACE_PROCESS_EVENT_CUDNN_START','cuDNN start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(34,'TRACE_PROCESS_EVENT_CUDNN_FINISH','cuDNN finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(35,'TRACE_PROCESS_EVENT_CUBLAS_START','cuBLAS start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(36,'TRACE_PROCESS_EVENT_CUBLAS_FINISH','cuBLAS finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(37,'TRACE_PROCESS_EVENT_THREAD_BLOCK','Thread block');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(38,'TRACE_PROCESS_EVENT_NVMEDIA','NVmedia');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(39,'TRACE_PROCESS_EVENT_NVMEDIA_START','NVmedia start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(40,'TRACE_PROCESS_EVENT_NVMEDIA_FINISH','NVmedia finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(41,'TRACE_PROCESS_EVENT_DX12_API','DX12 API');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(42,'TRACE_PROCESS_EVENT_DX12_WORKLOAD','DX12 workload');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(43,'TRACE_PROCESS_EVENT_DX12_START','DX12 start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(44,'TRACE_PROCESS_EVENT_DX12_FINISH','DX12 finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(45,'TRACE_PROCESS_EVENT_OPENACC_START','OpenACC start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(46,'TRACE_PROCESS_EVENT_OPENACC_FINISH','OpenACC finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(47,'TRACE_PROCESS_EVENT_OPENACC_INIT_ERROR','OpenACC init error');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(48,'TRACE_PROCESS_EVENT_OPENACC','OpenACC');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(49,'TRACE_PROCESS_EVENT_CPU_FPS','CPU FPS');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(50,'TRACE_PROCESS_EVENT_GPU_FPS','GPU FPS');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(51,'TRACE_PROCESS_EVENT_GL_MULTI_ERROR','GL multi-error');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(52,'TRACE_PROCESS_EVENT_DX12_DISPLAY','DX12 display');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(53,'TRACE_PROCESS_EVENT_VULKAN_API','Vulkan API');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(54,'TRACE_PROCESS_EVENT_VULKAN_WORKLOAD','Vulkan workload');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(55,'TRACE_PROCESS_EVENT_VULKAN_START','Vulkan start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(56,'TRACE_PROCESS_EVENT_VULKAN_FINISH','Vulkan finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(57,'TRACE_PROCESS_EVENT_SYSTEM_EVENT','System event');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(58,'TRACE_PROCESS_EVENT_GPU_MEMORY','GPU memory');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(59,'TRACE_PROCESS_EVENT_DX12_CREATE_OBJECT','DX12 create object');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(60,'TRACE_PROCESS_EVENT_VULKAN_CREATE_OBJECT','Vulkan create object');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(61,'TRACE_PROCESS_EVENT_CUSTOM_ETW_TRACE','Custom ETW trace');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(62,'TRACE_PROCESS_EVENT_SLI','SLI');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(63,'TRACE_PROCESS_EVENT_SLI_START','SLI start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(64,'TRACE_PROCESS_EVENT_SLI_FINISH','SLI finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(65,'TRACE_PROCESS_EVENT_DX12_DEBUG_API','DX12 debug API');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(66,'TRACE_PROCESS_EVENT_VULKAN_DEBUG_API','Vulkan debug API');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(67,'TRACE_PROCESS_EVENT_CUDABACKTRACE','CUDA backtrace');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(68,'TRACE_PROCESS_EVENT_CUDABACKTRACE_START','CUDA backtrace start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(69,'TRACE_PROCESS_EVENT_CUDABACKTRACE_FINISH','CUDA backtrace finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(70,'TRACE_PROCESS_EVENT_WDDM','WDDM');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(71,'TRACE_PROCESS_EVENT_DX11_API','DX11 API');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(72,'TRACE_PROCESS_EVENT_DX11_START','DX11 start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(73,'TRACE_PROCESS_EVENT_DX11_FINISH','DX11 finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(74,'TRACE_PROCESS_EVENT_DX11_CREATE_OBJECT','DX11 create object');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(75,'TRACE_PROCESS_EVENT_DX11_DEBUG_API','DX11 debug API');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(76,'TRACE_PROCESS_EVENT_DXCOMMON_API','DX common API');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(77,'TRACE_PROCESS_EVENT_CUDA_GRAPH_NODE_CREATION','CUDA graph node creation');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(78,'TRACE_PROCESS_EVENT_OPENMP','OpenMP');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(79,'TRACE_PROCESS_EVENT_OPENMP_START','OpenMP start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(80,'TRACE_PROCESS_EVENT_OPENMP_FINISH','OpenMP finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(81,'TRACE_PROCESS_EVENT_NVAPI','NV API');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(82,'TRACE_PROCESS_EVENT_ETWDXGKRNL','ETW DXG KRNL');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(83,'TRACE_PROCESS_EVENT_NVENC','NVENC');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(84,'TRACE_PROCESS_EVENT_NVENC_START','NVENC start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(85,'TRACE_PROCESS_EVENT_NVENC_FINISH','NVENC finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(86,'TRACE_PROCESS_EVENT_NVDEC','NVDEC');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(87,'TRACE_PROCESS_EVENT_NVDEC_START','NVDEC start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(88,'TRACE_PROCESS_EVENT_NVDEC_FINISH','NVDEC finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(89,'TRACE_PROCESS_EVENT_NVJPEG','nvJPEG');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(90,'TRACE_PROCESS_EVENT_NVJPEG_START','nvJPEG start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(91,'TRACE_PROCESS_EVENT_NVJPEG_FINISH','nvJPEG finish');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(92,'TRACE_PROCESS_EVENT_DX12_BATCH_WORKLOAD','DX12 batch workload');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(93,'TRACE_PROCESS_EVENT_VULKAN_BATCH_WORKLOAD','Vulkan batch workload');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(94,'TRACE_PROCESS_EVENT_CUDA_GRAPHEXEC_CREATION','CUDA graph exec creation');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(95,'TRACE_PROCESS_EVENT_CUDA_GRAPH_CREATION','CUDA graph creation');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(96,'TRACE_PROCESS_EVENT_CUDA_GRAPH_CLONE','CUDA graph clone');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(107,'TRACE_PROCESS_EVENT_SYSCALL','Syscall');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(108,'TRACE_PROCESS_EVENT_TEGRA_INTERNAL','Tegra Internal API');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(109,'TRACE_PROCESS_EVENT_TEGRA_INTERNAL_START','Tegra Internal API start');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(110,'TRACE_PROCESS_EVENT_TEGRA_INTERNAL_FINISH','Tegra Internal API finish');
CREATE TABLE ENUM_NSYS_GENERIC_EVENT_SOURCE (
    -- Nsys generic event source labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NSYS_GENERIC_EVENT_SOURCE VALUES(0,'NotSpecified','Not Specified');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_SOURCE VALUES(1,'ClockMonotonicRaw','Clock Monotoic Raw');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_SOURCE VALUES(2,'CntVct','Counter-Timer Virtual Count Register');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_SOURCE VALUES(3,'SessionNs','Session Nanoseconds');
CREATE TABLE ENUM_NSYS_GENERIC_EVENT_GROUP (
    -- Nsys generic event group labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NSYS_GENERIC_EVENT_GROUP VALUES(0,'Unknown','Unknown');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_GROUP VALUES(1,'FTrace','FTrace');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_GROUP VALUES(2,'NvMedia','NV Media');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_GROUP VALUES(3,'Hypervisor','Hypervisor');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_GROUP VALUES(4,'ETW','ETW');
CREATE TABLE ENUM_NSYS_GENERIC_EVENT_FIELD_TYPE (
    -- Nsys generic event field type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_TYPE VALUES(0,'Signed','Signed Integer');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_TYPE VALUES(1,'Unsigned','Unsigned Integer');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_TYPE VALUES(2,'Float','Float');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_TYPE VALUES(3,'Double','Double');
CREATE TABLE ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_PROPERTY (
    -- Nsys generic event field ETW property flag labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_PROPERTY VALUES(1,'PropertyStruct','Struct');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_PROPERTY VALUES(2,'PropertyParamLength','Param Length');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_PROPERTY VALUES(4,'PropertyParamCount','Param Count');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_PROPERTY VALUES(8,'PropertyWBEMXmlFragment','WBEM XML Fragment');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_PROPERTY VALUES(16,'PropertyParamFixedLength','Param Fixed Length');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_PROPERTY VALUES(32,'PropertyParamFixedCount','Param Fixed Count');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_PROPERTY VALUES(64,'PropertyHasTags','Has tags');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_PROPERTY VALUES(128,'PropertyHasCustomSchema','Has Custom Schema');
CREATE TABLE ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE (
    -- Nsys generic event field ETW type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(0,'TDH_INTYPE_NULL','NULL');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(1,'TDH_INTYPE_UNICODESTRING','Unicode String');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(2,'TDH_INTYPE_ANSISTRING','ANSI String');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(3,'TDH_INTYPE_INT8','int8');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(4,'TDH_INTYPE_UINT8','uint8');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(5,'TDH_INTYPE_INT16','int16');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(6,'TDH_INTYPE_UINT16','uint16');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(7,'TDH_INTYPE_INT32','int32');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(8,'TDH_INTYPE_UINT32','uint32');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(9,'TDH_INTYPE_INT64','int64');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(10,'TDH_INTYPE_UINT64','uint64');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(11,'TDH_INTYPE_FLOAT','float');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(12,'TDH_INTYPE_DOUBLE','double');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(13,'TDH_INTYPE_BOOLEAN','boolean');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(14,'TDH_INTYPE_BINARY','binary data');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(15,'TDH_INTYPE_GUID','GUID');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(16,'TDH_INTYPE_POINTER','Pointer');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(17,'TDH_INTYPE_FILETIME','File-time');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(18,'TDH_INTYPE_SYSTEMTIME','System-time');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(19,'TDH_INTYPE_SID','SID');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(20,'TDH_INTYPE_HEXINT32','Hex int32');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE VALUES(21,'TDH_INTYPE_HEXINT64','Hex int64');
CREATE TABLE ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_FLAGS (
    -- Nsys generic event field ETW map info flag labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_FLAGS VALUES(1,'EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP','Manifest Value Map');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_FLAGS VALUES(2,'EVENTMAP_INFO_FLAG_MANIFEST_BITMAP','Manifest Bitmap');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_FLAGS VALUES(4,'EVENTMAP_INFO_FLAG_MANIFEST_PATTERNMAP','Manifest Pattern Map');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_FLAGS VALUES(8,'EVENTMAP_INFO_FLAG_WBEM_VALUEMAP','WBEM Value Map');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_FLAGS VALUES(16,'EVENTMAP_INFO_FLAG_WBEM_BITMAP','WBEM Bitmap');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_FLAGS VALUES(32,'EVENTMAP_INFO_FLAG_WBEM_FLAG','WBEM Flag');
INSERT INTO ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_FLAGS VALUES(64,'EVENTMAP_INFO_FLAG_WBEM_NO_MAP','WBEM No Map');
CREATE TABLE ENUM_GPU_CTX_SWITCH (
    -- GPU context switch labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(-1,'UnknownGpuCtxswTag','Unknown');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(0,'SOF','SO');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(1,'REQ_BY_HOST','Request by host');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(2,'FE_ACK','Front-end ACK');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(3,'FE_ACK_WFI','Front-end ACK WFI');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(4,'FE_ACK_GFXP','Front-end ACK GFXP');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(5,'FE_ACK_CTAP','Front-end ACK CTAP');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(6,'FE_ACK_CILP','Front-end ACK CILP');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(7,'SAVE_END','Save end');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(8,'RESTORE_START','Restore start');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(9,'CONTEXT_START','Context start');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(10,'INVALID_TIMESTAMP','Invalid timestamp');
INSERT INTO ENUM_GPU_CTX_SWITCH VALUES(11,'ENGINE_RESET','Engine reset');
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (
    -- CUDA memcpy operation labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(0,'CUDA_MEMCPY_KIND_UNKNOWN','Unknown');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(3,'CUDA_MEMCPY_KIND_HTOA','Host-to-Array');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(4,'CUDA_MEMCPY_KIND_ATOH','Array-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(5,'CUDA_MEMCPY_KIND_ATOA','Array-to-Array');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(6,'CUDA_MEMCPY_KIND_ATOD','Array-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(7,'CUDA_MEMCPY_KIND_DTOA','Device-to-Array');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(9,'CUDA_MEMCPY_KIND_HTOH','Host-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(10,'CUDA_MEMCPY_KIND_PTOP','Peer-to-Peer');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(11,'CUDA_MEMCPY_KIND_UVM_HTOD','Unified Host-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(12,'CUDA_MEMCPY_KIND_UVM_DTOH','Unified Device-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(13,'CUDA_MEMCPY_KIND_UVM_DTOD','Unified Device-to-Device');
CREATE TABLE ENUM_CUDA_MEM_KIND (
    -- CUDA memory kind labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(1,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(3,'CUDA_MEMOPR_MEMORY_KIND_ARRAY','Array');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(4,'CUDA_MEMOPR_MEMORY_KIND_MANAGED','Managed');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(5,'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC','Device Static');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(6,'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC','Managed Static');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(7,'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN','Unknown');
CREATE TABLE ENUM_CUDA_MEMPOOL_TYPE (
    -- CUDA mempool type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUDA_MEMPOOL_TYPE VALUES(0,'CUDA_MEMPOOL_TYPE_INVALID','Invalid');
INSERT INTO ENUM_CUDA_MEMPOOL_TYPE VALUES(1,'CUDA_MEMPOOL_TYPE_LOCAL','Local');
INSERT INTO ENUM_CUDA_MEMPOOL_TYPE VALUES(2,'CUDA_MEMPOOL_TYPE_IMPORTED','Imported');
CREATE TABLE ENUM_CUDA_MEMPOOL_OPER (
    -- CUDA mempool operation labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUDA_MEMPOOL_OPER VALUES(0,'CUDA_MEMPOOL_OPERATION_TYPE_INVALID','Invalid');
INSERT INTO ENUM_CUDA_MEMPOOL_OPER VALUES(1,'CUDA_MEMPOOL_OPERATION_TYPE_CREATED','Created');
INSERT INTO ENUM_CUDA_MEMPOOL_OPER VALUES(2,'CUDA_MEMPOOL_OPERATION_TYPE_DESTROYED','Destroyed');
INSERT INTO ENUM_CUDA_MEMPOOL_OPER VALUES(3,'CUDA_MEMPOOL_OPERATION_TYPE_TRIMMED','Trimmed');
CREATE TABLE ENUM_CUDA_DEV_MEM_EVENT_OPER (
    -- CUDA device mem event operation labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUDA_DEV_MEM_EVENT_OPER VALUES(0,'CUDA_DEV_MEM_EVENT_OPR_ALLOCATION','Allocation');
INSERT INTO ENUM_CUDA_DEV_MEM_EVENT_OPER VALUES(1,'CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION','Deallocation');
CREATE TABLE ENUM_CUDA_KERNEL_LAUNCH_TYPE (
    -- CUDA kernel launch type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUDA_KERNEL_LAUNCH_TYPE VALUES(0,'CUDA_KERNEL_LAUNCH_TYPE_UNKNOWN','Unknown');
INSERT INTO ENUM_CUDA_KERNEL_LAUNCH_TYPE VALUES(1,'CUDA_KERNEL_LAUNCH_TYPE_REGULAR','Regular');
INSERT INTO ENUM_CUDA_KERNEL_LAUNCH_TYPE VALUES(2,'CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE','Coop Single Device');
INSERT INTO ENUM_CUDA_KERNEL_LAUNCH_TYPE VALUES(3,'CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE','Coop Multi Device');
CREATE TABLE ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG (
    -- CUDA shared memory limit config labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG VALUES(0,'CUDA_SHARED_MEM_LIMIT_DEFAULT','Default');
INSERT INTO ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG VALUES(1,'CUDA_SHARED_MEM_LIMIT_OPTIN','Opt in');
CREATE TABLE ENUM_CUDA_UNIF_MEM_MIGRATION (
    -- CUDA unified memory migration cause labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUDA_UNIF_MEM_MIGRATION VALUES(0,'CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_UNKNOWN','Unknown');
INSERT INTO ENUM_CUDA_UNIF_MEM_MIGRATION VALUES(1,'CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_USER','User prefetch');
INSERT INTO ENUM_CUDA_UNIF_MEM_MIGRATION VALUES(2,'CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE','Page fault');
INSERT INTO ENUM_CUDA_UNIF_MEM_MIGRATION VALUES(3,'CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH','Speculative prefecth');
INSERT INTO ENUM_CUDA_UNIF_MEM_MIGRATION VALUES(4,'CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION','Eviction');
INSERT INTO ENUM_CUDA_UNIF_MEM_MIGRATION VALUES(5,'CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_ACCESS_COUNTERS','Access counters');
CREATE TABLE ENUM_CUDA_UNIF_MEM_ACCESS_TYPE (
    -- CUDA unified memory access type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUDA_UNIF_MEM_ACCESS_TYPE VALUES(0,'CUDA_UNIFIED_MEMORY_ACCESS_TYPE_UNKNOWN','Unknown');
INSERT INTO ENUM_CUDA_UNIF_MEM_ACCESS_TYPE VALUES(1,'CUDA_UNIFIED_MEMORY_ACCESS_TYPE_READ','Read');
INSERT INTO ENUM_CUDA_UNIF_MEM_ACCESS_TYPE VALUES(2,'CUDA_UNIFIED_MEMORY_ACCESS_TYPE_WRITE','Write');
INSERT INTO ENUM_CUDA_UNIF_MEM_ACCESS_TYPE VALUES(3,'CUDA_UNIFIED_MEMORY_ACCESS_TYPE_ATOMIC','Atomic');
INSERT INTO ENUM_CUDA_UNIF_MEM_ACCESS_TYPE VALUES(4,'CUDA_UNIFIED_MEMORY_ACCESS_TYPE_PREFETCH','Prefetch');
CREATE TABLE ENUM_CUDA_FUNC_CACHE_CONFIG (
    -- CUDA function cache config labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUDA_FUNC_CACHE_CONFIG VALUES(0,'CU_FUNC_CACHE_PREFER_NONE','None');
INSERT INTO ENUM_CUDA_FUNC_CACHE_CONFIG VALUES(1,'CU_FUNC_CACHE_PREFER_SHARED','Shared');
INSERT INTO ENUM_CUDA_FUNC_CACHE_CONFIG VALUES(2,'CU_FUNC_CACHE_PREFER_L1','L1');
INSERT INTO ENUM_CUDA_FUNC_CACHE_CONFIG VALUES(3,'CU_FUNC_CACHE_PREFER_EQUAL','Equal');
CREATE TABLE ENUM_CUPTI_STREAM_TYPE (
    -- CUPTI stream type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(0,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_UNKNOWN','Unknown stream type');
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(1,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT','Default stream');
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(2,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING','Non-blocking stream');
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(3,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL','Null stream');
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (
    -- CUPTI synchronization type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(0,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN','Unknown');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(1,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE','Event sync');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(2,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT','Stream wait sync');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(3,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE','Stream sync');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(4,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE','Context sync');
CREATE TABLE ENUM_STACK_UNWIND_METHOD (
    -- Stack unwind method labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_STACK_UNWIND_METHOD VALUES(0,'Unknown','Unknown');
INSERT INTO ENUM_STACK_UNWIND_METHOD VALUES(1,'FramePointer','Frame pointer');
INSERT INTO ENUM_STACK_UNWIND_METHOD VALUES(2,'UnwindTable','Unwind table');
INSERT INTO ENUM_STACK_UNWIND_METHOD VALUES(3,'LR_FramePointer','LR frame pointer');
INSERT INTO ENUM_STACK_UNWIND_METHOD VALUES(4,'LR_UnwindTable','LR unwind table');
INSERT INTO ENUM_STACK_UNWIND_METHOD VALUES(5,'KernelContext','Kernel context');
INSERT INTO ENUM_STACK_UNWIND_METHOD VALUES(6,'DWARF_EH','DWARF EH');
INSERT INTO ENUM_STACK_UNWIND_METHOD VALUES(7,'DWARF_DF','DWARF DF');
INSERT INTO ENUM_STACK_UNWIND_METHOD VALUES(8,'LBR','LBR');
INSERT INTO ENUM_STACK_UNWIND_METHOD VALUES(1000,'Undefined','Undefined');
CREATE TABLE ENUM_SAMPLING_THREAD_STATE (
    -- Sampling thread state labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES(0,'Unknown','Unknown');
INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES(1,'Running','Running');
INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES(2,'Interruptible','Interruptible');
INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES(3,'Uninterruptible','Uninterruptible');
INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES(4,'Stopped','Stopped');
INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES(5,'Terminated','Terminated');
INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES(6,'Unscheduled','Unscheduled');
INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES(7,'Waiting','Waiting');
INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES(8,'OSRuntime','OS runtime');
INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES(9,'Initialized','Initialized');
INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES(10,'Transition','Transition');
CREATE TABLE ENUM_SCHEDULING_THREAD_BLOCK (
    -- Scheduling thread block labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(0,'NonBlocked','NonBlocked');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(1,'Unknown','Unknown');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(2,'SigSuspend','SigSuspend');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(3,'Stopped','Stopped');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(4,'Nanosleep','Nanosleep');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(5,'Intr','Intr');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(6,'Mutex','Mutex');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(7,'CondVar','CondVar');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(8,'Sem','Sem');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(9,'Join','Join');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(10,'SigWaitInfo','SigWaitInfo');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(11,'WaitCtx','WaitCtx');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(12,'Send','Send');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(13,'Receive','Receive');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(14,'Reply','Reply');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(15,'Stack','Stack');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(16,'WaitThread','WaitThread');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(17,'WaitPage','WaitPage');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(18,'NetSend','NetSend');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(19,'NetReply','NetReply');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(20,'FreePage','FreePage');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(21,'PageIn','PageIn');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(22,'PoolAllocation','PoolAllocation');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(23,'DelayExecution','DelayExecution');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(24,'Suspended','Suspended');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(25,'UserRequest','UserRequest');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(26,'EventPair','EventPair');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(27,'Queue','Queue');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(28,'LPCReceive','LPCReceive');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(29,'LPCReply','LPCReply');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(30,'VirtualMemory','VirtualMemory');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(31,'PageOut','PageOut');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(32,'Rendezvous','Rendezvous');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(33,'KeyedEvent','KeyedEvent');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(34,'Terminated','Terminated');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(35,'ProcessInSwap','ProcessInSwap');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(36,'CPURateControl','CPURateControl');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(37,'WrCalloutStack','WrCalloutStack');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(38,'Kernel','Kernel');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(39,'Resource','Resource');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(40,'PushLock','PushLock');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(41,'WindowsMutex','WindowsMutex');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(42,'QuantumEnd','QuantumEnd');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(43,'DispatchInt','DispatchInt');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(44,'Preempted','Preempted');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(45,'YieldExecution','YieldExecution');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(46,'FastMutex','FastMutex');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(47,'GuardedMutex','GuardedMutex');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(48,'Rundown','Rundown');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(49,'ReadyToRun','ReadyToRun');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(50,'AlertByThreadId','AlertByThreadId');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(51,'DeferredPreempt','DeferredPreempt');
INSERT INTO ENUM_SCHEDULING_THREAD_BLOCK VALUES(52,'PhysicalFault','PhysicalFault');
CREATE TABLE ENUM_OPENGL_DEBUG_SOURCE (
    -- OpenGL debug source labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENGL_DEBUG_SOURCE VALUES(33350,'GL_DEBUG_SOURCE_API','API');
INSERT INTO ENUM_OPENGL_DEBUG_SOURCE VALUES(33351,'GL_DEBUG_SOURCE_WINDOW_SYSTEM','Window system');
INSERT INTO ENUM_OPENGL_DEBUG_SOURCE VALUES(33352,'GL_DEBUG_SOURCE_SHADER_COMPILER','Shader compiler');
INSERT INTO ENUM_OPENGL_DEBUG_SOURCE VALUES(33353,'GL_DEBUG_SOURCE_THIRD_PARTY','Third party');
INSERT INTO ENUM_OPENGL_DEBUG_SOURCE VALUES(33354,'GL_DEBUG_SOURCE_APPLICATION','Application');
INSERT INTO ENUM_OPENGL_DEBUG_SOURCE VALUES(33355,'GL_DEBUG_SOURCE_OTHER','Other');
CREATE TABLE ENUM_OPENGL_DEBUG_TYPE (
    -- OpenGL debug type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENGL_DEBUG_TYPE VALUES(33356,'GL_DEBUG_TYPE_ERROR','Error');
INSERT INTO ENUM_OPENGL_DEBUG_TYPE VALUES(33357,'GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR','Deprecated behavior');
INSERT INTO ENUM_OPENGL_DEBUG_TYPE VALUES(33358,'GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR','Undefined behavior');
INSERT INTO ENUM_OPENGL_DEBUG_TYPE VALUES(33359,'GL_DEBUG_TYPE_PORTABILITY','Portability');
INSERT INTO ENUM_OPENGL_DEBUG_TYPE VALUES(33360,'GL_DEBUG_TYPE_PERFORMANCE','Performance');
INSERT INTO ENUM_OPENGL_DEBUG_TYPE VALUES(33361,'GL_DEBUG_TYPE_OTHER','Other');
INSERT INTO ENUM_OPENGL_DEBUG_TYPE VALUES(33384,'GL_DEBUG_TYPE_MARKER','Marker');
INSERT INTO ENUM_OPENGL_DEBUG_TYPE VALUES(33385,'GL_DEBUG_TYPE_PUSH_GROUP','Push group');
INSERT INTO ENUM_OPENGL_DEBUG_TYPE VALUES(33386,'GL_DEBUG_TYPE_POP_GROUP','Pop group');
CREATE TABLE ENUM_OPENGL_DEBUG_SEVERITY (
    -- OpenGL debug severity labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENGL_DEBUG_SEVERITY VALUES(33387,'GL_DEBUG_SEVERITY_NOTIFICATION','Notification');
INSERT INTO ENUM_OPENGL_DEBUG_SEVERITY VALUES(37190,'GL_DEBUG_SEVERITY_HIGH','High');
INSERT INTO ENUM_OPENGL_DEBUG_SEVERITY VALUES(37191,'GL_DEBUG_SEVERITY_MEDIUM','Medium');
INSERT INTO ENUM_OPENGL_DEBUG_SEVERITY VALUES(37192,'GL_DEBUG_SEVERITY_LOW','Low');
CREATE TABLE ENUM_VULKAN_PIPELINE_CREATION_FLAGS (
    -- Vulkan pipeline creation feedback flag labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_VULKAN_PIPELINE_CREATION_FLAGS VALUES(1,'VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT','Valid flag');
INSERT INTO ENUM_VULKAN_PIPELINE_CREATION_FLAGS VALUES(2,'VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT','Cache hit flag');
INSERT INTO ENUM_VULKAN_PIPELINE_CREATION_FLAGS VALUES(4,'VK_PIPELINE_CREATION_FEEDBACK_BASE_PIPELINE_ACCELERATION_BIT','Pipeline acceleration flag');
CREATE TABLE ENUM_D3D12_HEAP_TYPE (
    -- D3D12 heap type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_D3D12_HEAP_TYPE VALUES(1,'D3D12_HEAP_TYPE_DEFAULT','Default');
INSERT INTO ENUM_D3D12_HEAP_TYPE VALUES(2,'D3D12_HEAP_TYPE_UPLOAD','Upload');
INSERT INTO ENUM_D3D12_HEAP_TYPE VALUES(3,'D3D12_HEAP_TYPE_READBACK','Readback');
INSERT INTO ENUM_D3D12_HEAP_TYPE VALUES(4,'D3D12_HEAP_TYPE_CUSTOM','Custom');
CREATE TABLE ENUM_D3D12_PAGE_PROPERTY (
    -- D3D12 CPU page property labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_D3D12_PAGE_PROPERTY VALUES(0,'D3D12_CPU_PAGE_PROPERTY_UNKNOWN','Unknown');
INSERT INTO ENUM_D3D12_PAGE_PROPERTY VALUES(1,'D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE','Not available');
INSERT INTO ENUM_D3D12_PAGE_PROPERTY VALUES(2,'D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE','Write combine');
INSERT INTO ENUM_D3D12_PAGE_PROPERTY VALUES(3,'D3D12_CPU_PAGE_PROPERTY_WRITE_BACK','Write back');
CREATE TABLE ENUM_D3D12_HEAP_FLAGS (
    -- D3D12 heap flag labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_D3D12_HEAP_FLAGS VALUES(0,'D3D12_HEAP_FLAG_NONE','None');
INSERT INTO ENUM_D3D12_HEAP_FLAGS VALUES(1,'D3D12_HEAP_FLAG_SHARED','Shared');
INSERT INTO ENUM_D3D12_HEAP_FLAGS VALUES(4,'D3D12_HEAP_FLAG_DENY_BUFFERS','Deny Buffers');
INSERT INTO ENUM_D3D12_HEAP_FLAGS VALUES(8,'D3D12_HEAP_FLAG_ALLOW_DISPLAY','Allow Display');
INSERT INTO ENUM_D3D12_HEAP_FLAGS VALUES(32,'D3D12_HEAP_FLAG_SHARED_CROSS_ADAPTER','Shared Cross Adapter');
INSERT INTO ENUM_D3D12_HEAP_FLAGS VALUES(64,'D3D12_HEAP_FLAG_DENY_RT_DS_TEXTURES','Deny RT DS Textures');
INSERT INTO ENUM_D3D12_HEAP_FLAGS VALUES(128,'D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES','Deny non-RT Textures');
CREATE TABLE ENUM_D3D12_CMD_LIST_TYPE (
    -- D3D12 command list type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_D3D12_CMD_LIST_TYPE VALUES(0,'D3D12_COMMAND_LIST_TYPE_DIRECT','Direct');
INSERT INTO ENUM_D3D12_CMD_LIST_TYPE VALUES(1,'D3D12_COMMAND_LIST_TYPE_BUNDLE','Bundle');
INSERT INTO ENUM_D3D12_CMD_LIST_TYPE VALUES(2,'D3D12_COMMAND_LIST_TYPE_COMPUTE','Compute');
INSERT INTO ENUM_D3D12_CMD_LIST_TYPE VALUES(3,'D3D12_COMMAND_LIST_TYPE_COPY','Copy');
INSERT INTO ENUM_D3D12_CMD_LIST_TYPE VALUES(4,'D3D12_COMMAND_LIST_TYPE_VIDEO_DECODE','Video decode');
INSERT INTO ENUM_D3D12_CMD_LIST_TYPE VALUES(5,'D3D12_COMMAND_LIST_TYPE_VIDEO_PROCESS','Video process');
INSERT INTO ENUM_D3D12_CMD_LIST_TYPE VALUES(6,'D3D12_COMMAND_LIST_TYPE_VIDEO_ENCODE','Video encode');
CREATE TABLE ENUM_OPENACC_DEVICE (
    -- OpenACC device type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENACC_DEVICE VALUES(0,'acc_device_none','None');
INSERT INTO ENUM_OPENACC_DEVICE VALUES(1,'acc_device_default','Default');
INSERT INTO ENUM_OPENACC_DEVICE VALUES(2,'acc_device_host','Host');
INSERT INTO ENUM_OPENACC_DEVICE VALUES(3,'acc_device_not_host','Not host');
INSERT INTO ENUM_OPENACC_DEVICE VALUES(4,'acc_device_nvidia','NVIDIA');
INSERT INTO ENUM_OPENACC_DEVICE VALUES(5,'acc_device_radeon','Radeon');
INSERT INTO ENUM_OPENACC_DEVICE VALUES(6,'acc_device_xeonphi','Xeon Phi');
INSERT INTO ENUM_OPENACC_DEVICE VALUES(7,'acc_device_pgi_opencl','PGI OpenCL');
INSERT INTO ENUM_OPENACC_DEVICE VALUES(8,'acc_device_nvidia_opencl','NVIDIA OpenCL');
INSERT INTO ENUM_OPENACC_DEVICE VALUES(9,'acc_device_opencl','OpenCL');
CREATE TABLE ENUM_OPENACC_EVENT_KIND (
    -- OpenACC event type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(0,'CUPTI_OPENACC_EVENT_KIND_INVALID','Invalid');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(1,'CUPTI_OPENACC_EVENT_KIND_DEVICE_INIT','Device init');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(2,'CUPTI_OPENACC_EVENT_KIND_DEVICE_SHUTDOWN','Device shutdown');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(3,'CUPTI_OPENACC_EVENT_KIND_RUNTIME_SHUTDOWN','Runtime shutdown');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(4,'CUPTI_OPENACC_EVENT_KIND_ENQUEUE_LAUNCH','Enqueue launch');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(5,'CUPTI_OPENACC_EVENT_KIND_ENQUEUE_UPLOAD','Enqueue upload');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(6,'CUPTI_OPENACC_EVENT_KIND_ENQUEUE_DOWNLOAD','Enqueue download');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(7,'CUPTI_OPENACC_EVENT_KIND_WAIT','Wait');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(8,'CUPTI_OPENACC_EVENT_KIND_IMPLICIT_WAIT','Implicit wait');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(9,'CUPTI_OPENACC_EVENT_KIND_COMPUTE_CONSTRUCT','Compute construct');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(10,'CUPTI_OPENACC_EVENT_KIND_UPDATE','UPDATE');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(11,'CUPTI_OPENACC_EVENT_KIND_ENTER_DATA','Enter data');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(12,'CUPTI_OPENACC_EVENT_KIND_EXIT_DATA','Exit data');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(13,'CUPTI_OPENACC_EVENT_KIND_CREATE','Create');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(14,'CUPTI_OPENACC_EVENT_KIND_DELETE','Delete');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(15,'CUPTI_OPENACC_EVENT_KIND_ALLOC','Alloc');
INSERT INTO ENUM_OPENACC_EVENT_KIND VALUES(16,'CUPTI_OPENACC_EVENT_KIND_FREE','Free');
CREATE TABLE ENUM_OPENMP_EVENT_KIND (
    -- OpenMP event kind labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(0,'OPENMP_EVENT_KIND_INVALID','Invalid');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(1,'OPENMP_EVENT_KIND_THREAD_BEGIN','Thread begin');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(2,'OPENMP_EVENT_KIND_THREAD_END','Thread end');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(3,'OPENMP_EVENT_KIND_PARALLEL_BEGIN','Parallel begin');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(4,'OPENMP_EVENT_KIND_PARALLEL_END','Parallel End');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(5,'OPENMP_EVENT_KIND_SYNC_REGION_WAIT_BEGIN','Sync region wait begin');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(6,'OPENMP_EVENT_KIND_SYNC_REGION_WAIT_END','Sync region wait end');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(7,'OPENMP_EVENT_KIND_SYNC_REGION_BEGIN','Sync region begin');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(8,'OPENMP_EVENT_KIND_SYNC_REGION_END','Sync region end');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(9,'OPENMP_EVENT_KIND_TASK_BEGIN','Task begin');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(10,'OPENMP_EVENT_KIND_TASK_END','Task end');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(11,'OPENMP_EVENT_KIND_MASTER_BEGIN','Master begin');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(12,'OPENMP_EVENT_KIND_MASTER_END','Master end');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(13,'OPENMP_EVENT_KIND_REDUCTION_BEGIN','Reduction begin');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(14,'OPENMP_EVENT_KIND_REDUCTION_END','Reduction end');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(15,'OPENMP_EVENT_KIND_TASK_CREATE','Task create');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(16,'OPENMP_EVENT_KIND_TASK_SCHEDULE','Task schedule');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(17,'OPENMP_EVENT_KIND_CANCEL','Cancel');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(18,'OPENMP_EVENT_KIND_MUTEX_ACQUIRE','Mutex acquire');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(19,'OPENMP_EVENT_KIND_MUTEX_ACQUIRED','Mutex acquired');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(20,'OPENMP_EVENT_KIND_MUTEX_RELEASED','Mutex released');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(21,'OPENMP_EVENT_KIND_LOCK_INIT','Lock init');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(22,'OPENMP_EVENT_KIND_LOCK_DESTROY','Lock destroy');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(23,'OPENMP_EVENT_KIND_WORKSHARE_BEGIN','Workshare begin');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(24,'OPENMP_EVENT_KIND_WORKSHARE_END','Workshare end');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(25,'OPENMP_EVENT_KIND_DISPATCH','Dispatch');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(26,'OPENMP_EVENT_KIND_FLUSH','Flush');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(27,'OPENMP_EVENT_KIND_THREAD','Thread');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(28,'OPENMP_EVENT_KIND_PARALLEL','Parallel');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(29,'OPENMP_EVENT_KIND_SYNC_REGION_WAIT','Sync region wait');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(30,'OPENMP_EVENT_KIND_SYNC_REGION','Sync region');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(31,'OPENMP_EVENT_KIND_TASK','Task');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(32,'OPENMP_EVENT_KIND_MASTER','Master');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(33,'OPENMP_EVENT_KIND_REDUCTION','Reduction');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(34,'OPENMP_EVENT_KIND_MUTEX_WAIT','Mutex wait');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(35,'OPENMP_EVENT_KIND_CRITICAL_SECTION','Critical section');
INSERT INTO ENUM_OPENMP_EVENT_KIND VALUES(36,'OPENMP_EVENT_KIND_WORKSHARE','Workshare');
CREATE TABLE ENUM_OPENMP_THREAD (
    -- OpenMP thread labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENMP_THREAD VALUES(1,'ompt_thread_initial','Initial');
INSERT INTO ENUM_OPENMP_THREAD VALUES(2,'ompt_thread_worker','Worker');
INSERT INTO ENUM_OPENMP_THREAD VALUES(3,'ompt_thread_other','Internal');
INSERT INTO ENUM_OPENMP_THREAD VALUES(4,'ompt_thread_unknown','Unknown');
CREATE TABLE ENUM_OPENMP_DISPATCH (
    -- OpenMP dispatch labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENMP_DISPATCH VALUES(1,'ompt_dispatch_iteration','Iteration');
INSERT INTO ENUM_OPENMP_DISPATCH VALUES(2,'ompt_dispatch_section','Section');
CREATE TABLE ENUM_OPENMP_SYNC_REGION (
    -- OpenMP sync region labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENMP_SYNC_REGION VALUES(1,'ompt_sync_region_barrier','Barrier');
INSERT INTO ENUM_OPENMP_SYNC_REGION VALUES(2,'ompt_sync_region_barrier_implicit','Implicit barrier');
INSERT INTO ENUM_OPENMP_SYNC_REGION VALUES(3,'ompt_sync_region_barrier_explicit','Explicit barrier');
INSERT INTO ENUM_OPENMP_SYNC_REGION VALUES(4,'ompt_sync_region_barrier_implementation','Implementation barrier');
INSERT INTO ENUM_OPENMP_SYNC_REGION VALUES(5,'ompt_sync_region_taskwait','Task wait');
INSERT INTO ENUM_OPENMP_SYNC_REGION VALUES(6,'ompt_sync_region_taskgroup','Task group');
INSERT INTO ENUM_OPENMP_SYNC_REGION VALUES(7,'ompt_sync_region_reduction','Reduction');
CREATE TABLE ENUM_OPENMP_WORK (
    -- OpenMP work labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENMP_WORK VALUES(1,'ompt_work_loop','Loop region');
INSERT INTO ENUM_OPENMP_WORK VALUES(2,'ompt_work_sections','Sections region');
INSERT INTO ENUM_OPENMP_WORK VALUES(3,'ompt_work_single_executor','Single region executor');
INSERT INTO ENUM_OPENMP_WORK VALUES(4,'ompt_work_single_other','Single region waiting');
INSERT INTO ENUM_OPENMP_WORK VALUES(5,'ompt_work_workshare','Workshare retion');
INSERT INTO ENUM_OPENMP_WORK VALUES(6,'ompt_work_distribute','Distribute region');
INSERT INTO ENUM_OPENMP_WORK VALUES(7,'ompt_work_taskloop','Task loop region');
CREATE TABLE ENUM_OPENMP_MUTEX (
    -- OpenMP mutex labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENMP_MUTEX VALUES(1,'ompt_mutex_lock','Wait for lock');
INSERT INTO ENUM_OPENMP_MUTEX VALUES(2,'ompt_mutex_test_lock','Testing lock');
INSERT INTO ENUM_OPENMP_MUTEX VALUES(3,'ompt_mutex_nest_lock','Wait for nested lock');
INSERT INTO ENUM_OPENMP_MUTEX VALUES(4,'ompt_mutex_test_nest_lock','Testing nested lock');
INSERT INTO ENUM_OPENMP_MUTEX VALUES(5,'ompt_mutex_critical','Wait for critical section entry');
INSERT INTO ENUM_OPENMP_MUTEX VALUES(6,'ompt_mutex_atomic','Wait for atomic region entry');
INSERT INTO ENUM_OPENMP_MUTEX VALUES(7,'ompt_mutex_ordered','Wait for ordered region entry');
CREATE TABLE ENUM_OPENMP_TASK_FLAG (
    -- OpenMP task flags labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENMP_TASK_FLAG VALUES(1,'ompt_task_initial','Initial');
INSERT INTO ENUM_OPENMP_TASK_FLAG VALUES(2,'ompt_task_implicit','Implitic');
INSERT INTO ENUM_OPENMP_TASK_FLAG VALUES(4,'ompt_task_explicit','Explicit');
INSERT INTO ENUM_OPENMP_TASK_FLAG VALUES(8,'ompt_task_target','Target');
INSERT INTO ENUM_OPENMP_TASK_FLAG VALUES(134217728,'ompt_task_undeferred','Undeferred');
INSERT INTO ENUM_OPENMP_TASK_FLAG VALUES(268435456,'ompt_task_untied','United');
INSERT INTO ENUM_OPENMP_TASK_FLAG VALUES(536870912,'ompt_task_final','Final');
INSERT INTO ENUM_OPENMP_TASK_FLAG VALUES(1073741824,'ompt_task_mergeable','Mergeable');
INSERT INTO ENUM_OPENMP_TASK_FLAG VALUES(2147483648,'ompt_task_merged','Merged');
CREATE TABLE ENUM_OPENMP_TASK_STATUS (
    -- OpenMP task status labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_OPENMP_TASK_STATUS VALUES(1,'ompt_task_complete','Completed');
INSERT INTO ENUM_OPENMP_TASK_STATUS VALUES(2,'ompt_task_yield','Yielded');
INSERT INTO ENUM_OPENMP_TASK_STATUS VALUES(3,'ompt_task_cancel','Cancelled');
INSERT INTO ENUM_OPENMP_TASK_STATUS VALUES(4,'ompt_task_detach','Detached');
INSERT INTO ENUM_OPENMP_TASK_STATUS VALUES(5,'ompt_task_early_fulfill','Early fulfilled');
INSERT INTO ENUM_OPENMP_TASK_STATUS VALUES(6,'ompt_task_late_fulfill','Late fulfilled');
INSERT INTO ENUM_OPENMP_TASK_STATUS VALUES(7,'ompt_task_switch','Switched Out');
CREATE TABLE ENUM_SLI_TRANSER (
    -- OpenMP task status labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_SLI_TRANSER VALUES(0,'P2P_SKIPPED','Skipped');
INSERT INTO ENUM_SLI_TRANSER VALUES(1,'P2P_EARLY_PUSH','Early push');
INSERT INTO ENUM_SLI_TRANSER VALUES(2,'P2P_PUSH_FAILED','Push failed');
INSERT INTO ENUM_SLI_TRANSER VALUES(3,'P2P_2WAY_OR_PULL','2way or pull');
INSERT INTO ENUM_SLI_TRANSER VALUES(4,'P2P_PRESENT','Present');
INSERT INTO ENUM_SLI_TRANSER VALUES(5,'P2P_DX12_INIT_PUSH_ON_WRITE','DX12 push on write');
CREATE TABLE ENUM_DXGI_FORMAT (
    -- DXGI image format labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_DXGI_FORMAT VALUES(0,'DXGI_FORMAT_UNKNOWN','Unknown');
INSERT INTO ENUM_DXGI_FORMAT VALUES(1,'DXGI_FORMAT_R32G32B32A32_TYPELESS','R32G32B32A32 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(2,'DXGI_FORMAT_R32G32B32A32_FLOAT','R32G32B32A32 float');
INSERT INTO ENUM_DXGI_FORMAT VALUES(3,'DXGI_FORMAT_R32G32B32A32_UINT','R32G32B32A32 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(4,'DXGI_FORMAT_R32G32B32A32_SINT','R32G32B32A32 int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(5,'DXGI_FORMAT_R32G32B32_TYPELESS','R32G32B32 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(6,'DXGI_FORMAT_R32G32B32_FLOAT','R32G32B32 float');
INSERT INTO ENUM_DXGI_FORMAT VALUES(7,'DXGI_FORMAT_R32G32B32_UINT','R32G32B32 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(8,'DXGI_FORMAT_R32G32B32_SINT','R32G32B32 int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(9,'DXGI_FORMAT_R16G16B16A16_TYPELESS','R16G16B16A16 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(10,'DXGI_FORMAT_R16G16B16A16_FLOAT','R16G16B16A16 float');
INSERT INTO ENUM_DXGI_FORMAT VALUES(11,'DXGI_FORMAT_R16G16B16A16_UNORM','R16G16B16A16 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(12,'DXGI_FORMAT_R16G16B16A16_UINT','R16G16B16A16 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(13,'DXGI_FORMAT_R16G16B16A16_SNORM','R16G16B16A16 norm-int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(14,'DXGI_FORMAT_R16G16B16A16_SINT','R16G16B16A16 int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(15,'DXGI_FORMAT_R32G32_TYPELESS','R32G32 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(16,'DXGI_FORMAT_R32G32_FLOAT','R32G32 float');
INSERT INTO ENUM_DXGI_FORMAT VALUES(17,'DXGI_FORMAT_R32G32_UINT','R32G32 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(18,'DXGI_FORMAT_R32G32_SINT','R32G32 int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(19,'DXGI_FORMAT_R32G8X24_TYPELESS','R32G8X24 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(20,'DXGI_FORMAT_D32_FLOAT_S8X24_UINT','D32 float, S8X24 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(21,'DXGI_FORMAT_R32_FLOAT_X8X24_TYPELESS','R32 float, X8X24 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(22,'DXGI_FORMAT_X32_TYPELESS_G8X24_UINT','X32 typeless, G8X24 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(23,'DXGI_FORMAT_R10G10B10A2_TYPELESS','R10G10B10A2 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(24,'DXGI_FORMAT_R10G10B10A2_UNORM','R10G10B10A2 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(25,'DXGI_FORMAT_R10G10B10A2_UINT','R10G10B10A2 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(26,'DXGI_FORMAT_R11G11B10_FLOAT','R11G11B10 float');
INSERT INTO ENUM_DXGI_FORMAT VALUES(27,'DXGI_FORMAT_R8G8B8A8_TYPELESS','R8G8B8A8 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(28,'DXGI_FORMAT_R8G8B8A8_UNORM','R8G8B8A8 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(29,'DXGI_FORMAT_R8G8B8A8_UNORM_SRGB','R8G8B8A8 norm-uint sRGB');
INSERT INTO ENUM_DXGI_FORMAT VALUES(30,'DXGI_FORMAT_R8G8B8A8_UINT','R8G8B8A8 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(31,'DXGI_FORMAT_R8G8B8A8_SNORM','R8G8B8A8 ????');
INSERT INTO ENUM_DXGI_FORMAT VALUES(32,'DXGI_FORMAT_R8G8B8A8_SINT','R8G8B8A8 int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(33,'DXGI_FORMAT_R16G16_TYPELESS','R16G16 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(34,'DXGI_FORMAT_R16G16_FLOAT','R16G16 float');
INSERT INTO ENUM_DXGI_FORMAT VALUES(35,'DXGI_FORMAT_R16G16_UNORM','R16G16 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(36,'DXGI_FORMAT_R16G16_UINT','R16G16 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(37,'DXGI_FORMAT_R16G16_SNORM','R16G16 norm-int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(38,'DXGI_FORMAT_R16G16_SINT','R16G16 int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(39,'DXGI_FORMAT_R32_TYPELESS','R32 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(40,'DXGI_FORMAT_D32_FLOAT','D32 float');
INSERT INTO ENUM_DXGI_FORMAT VALUES(41,'DXGI_FORMAT_R32_FLOAT','R32 float');
INSERT INTO ENUM_DXGI_FORMAT VALUES(42,'DXGI_FORMAT_R32_UINT','R32 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(43,'DXGI_FORMAT_R32_SINT','R32 int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(44,'DXGI_FORMAT_R24G8_TYPELESS','R24G8 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(45,'DXGI_FORMAT_D24_UNORM_S8_UINT','D24 norm-uint, S8 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(46,'DXGI_FORMAT_R24_UNORM_X8_TYPELESS','R24 norm-uint, X8 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(47,'DXGI_FORMAT_X24_TYPELESS_G8_UINT','X24 typeless, G8 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(48,'DXGI_FORMAT_R8G8_TYPELESS','R8G8 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(49,'DXGI_FORMAT_R8G8_UNORM','R8G8 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(50,'DXGI_FORMAT_R8G8_UINT','R8G8 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(51,'DXGI_FORMAT_R8G8_SNORM','R8G8 norm-int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(52,'DXGI_FORMAT_R8G8_SINT','R8G8 int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(53,'DXGI_FORMAT_R16_TYPELESS','R16 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(54,'DXGI_FORMAT_R16_FLOAT','R16 float');
INSERT INTO ENUM_DXGI_FORMAT VALUES(55,'DXGI_FORMAT_D16_UNORM','D16 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(56,'DXGI_FORMAT_R16_UNORM','R16 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(57,'DXGI_FORMAT_R16_UINT','R16 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(58,'DXGI_FORMAT_R16_SNORM','R16 norm-int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(59,'DXGI_FORMAT_R16_SINT','R16 int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(60,'DXGI_FORMAT_R8_TYPELESS','R8 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(61,'DXGI_FORMAT_R8_UNORM','R8 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(62,'DXGI_FORMAT_R8_UINT','R8 uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(63,'DXGI_FORMAT_R8_SNORM','R8 norm-int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(64,'DXGI_FORMAT_R8_SINT','R8 int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(65,'DXGI_FORMAT_A8_UNORM','A8 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(66,'DXGI_FORMAT_R1_UNORM','R1 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(67,'DXGI_FORMAT_R9G9B9E5_SHAREDEXP','R9G9B9E5 shared float');
INSERT INTO ENUM_DXGI_FORMAT VALUES(68,'DXGI_FORMAT_R8G8_B8G8_UNORM','R8G8_B8G8 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(69,'DXGI_FORMAT_G8R8_G8B8_UNORM','G8R8_G8B8 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(70,'DXGI_FORMAT_BC1_TYPELESS','BC-1 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(71,'DXGI_FORMAT_BC1_UNORM','BC-1 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(72,'DXGI_FORMAT_BC1_UNORM_SRGB','BC-1 norm-uint sRGB');
INSERT INTO ENUM_DXGI_FORMAT VALUES(73,'DXGI_FORMAT_BC2_TYPELESS','BC-2 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(74,'DXGI_FORMAT_BC2_UNORM','BC-2 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(75,'DXGI_FORMAT_BC2_UNORM_SRGB','BC-2 norm-uint sRGB');
INSERT INTO ENUM_DXGI_FORMAT VALUES(76,'DXGI_FORMAT_BC3_TYPELESS','BC-3 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(77,'DXGI_FORMAT_BC3_UNORM','BC-3 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(78,'DXGI_FORMAT_BC3_UNORM_SRGB','BC-3 norm-uint sRGB');
INSERT INTO ENUM_DXGI_FORMAT VALUES(79,'DXGI_FORMAT_BC4_TYPELESS','BC-4 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(80,'DXGI_FORMAT_BC4_UNORM','BC-4 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(81,'DXGI_FORMAT_BC4_SNORM','BC-4 norm-int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(82,'DXGI_FORMAT_BC5_TYPELESS','BC-5 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(83,'DXGI_FORMAT_BC5_UNORM','BC-5 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(84,'DXGI_FORMAT_BC5_SNORM','BC-5 norm-int');
INSERT INTO ENUM_DXGI_FORMAT VALUES(85,'DXGI_FORMAT_B5G6R5_UNORM','B5G6R5 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(86,'DXGI_FORMAT_B5G5R5A1_UNORM','B5G5R5A1 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(87,'DXGI_FORMAT_B8G8R8A8_UNORM','B8G8R8A8 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(88,'DXGI_FORMAT_B8G8R8X8_UNORM','B8G8R8X8 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(89,'DXGI_FORMAT_R10G10B10_XR_BIAS_A2_UNORM','R10G10B10 fixed-pt, A2 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(90,'DXGI_FORMAT_B8G8R8A8_TYPELESS','B8G8R8A8 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(91,'DXGI_FORMAT_B8G8R8A8_UNORM_SRGB','B8G8R8A8 norm-uint sRGB');
INSERT INTO ENUM_DXGI_FORMAT VALUES(92,'DXGI_FORMAT_B8G8R8X8_TYPELESS','B8G8R8X8 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(93,'DXGI_FORMAT_B8G8R8X8_UNORM_SRGB','B8G8R8X8 norm-uint sRGB');
INSERT INTO ENUM_DXGI_FORMAT VALUES(94,'DXGI_FORMAT_BC6H_TYPELESS','BC-6H typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(95,'DXGI_FORMAT_BC6H_UF16','BC-6H ufloat');
INSERT INTO ENUM_DXGI_FORMAT VALUES(96,'DXGI_FORMAT_BC6H_SF16','BC-6H float');
INSERT INTO ENUM_DXGI_FORMAT VALUES(97,'DXGI_FORMAT_BC7_TYPELESS','BC-7 typeless');
INSERT INTO ENUM_DXGI_FORMAT VALUES(98,'DXGI_FORMAT_BC7_UNORM','BC-7 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(99,'DXGI_FORMAT_BC7_UNORM_SRGB','BC-7 norm-uint sRGB');
INSERT INTO ENUM_DXGI_FORMAT VALUES(100,'DXGI_FORMAT_AYUV','AYUV444-8');
INSERT INTO ENUM_DXGI_FORMAT VALUES(101,'DXGI_FORMAT_Y410','Y444-10');
INSERT INTO ENUM_DXGI_FORMAT VALUES(102,'DXGI_FORMAT_Y416','Y444-16');
INSERT INTO ENUM_DXGI_FORMAT VALUES(103,'DXGI_FORMAT_NV12','NV420-8');
INSERT INTO ENUM_DXGI_FORMAT VALUES(104,'DXGI_FORMAT_P010','P420-10');
INSERT INTO ENUM_DXGI_FORMAT VALUES(105,'DXGI_FORMAT_P016','P420-16');
INSERT INTO ENUM_DXGI_FORMAT VALUES(106,'DXGI_FORMAT_420_OPAQUE','YUV420-8 opaque');
INSERT INTO ENUM_DXGI_FORMAT VALUES(107,'DXGI_FORMAT_YUY2','YUY422');
INSERT INTO ENUM_DXGI_FORMAT VALUES(108,'DXGI_FORMAT_Y210','Y422-10');
INSERT INTO ENUM_DXGI_FORMAT VALUES(109,'DXGI_FORMAT_Y216','Y422-16');
INSERT INTO ENUM_DXGI_FORMAT VALUES(110,'DXGI_FORMAT_NV11','NV411-8');
INSERT INTO ENUM_DXGI_FORMAT VALUES(111,'DXGI_FORMAT_AI44','AI44');
INSERT INTO ENUM_DXGI_FORMAT VALUES(112,'DXGI_FORMAT_IA44','IA44');
INSERT INTO ENUM_DXGI_FORMAT VALUES(113,'DXGI_FORMAT_P8','P8');
INSERT INTO ENUM_DXGI_FORMAT VALUES(114,'DXGI_FORMAT_A8P8','A8P8');
INSERT INTO ENUM_DXGI_FORMAT VALUES(115,'DXGI_FORMAT_B4G4R4A4_UNORM','B4G4R4A4 norm-uint');
INSERT INTO ENUM_DXGI_FORMAT VALUES(130,'DXGI_FORMAT_P208','YCbCrA 422 8');
INSERT INTO ENUM_DXGI_FORMAT VALUES(131,'DXGI_FORMAT_V208','YCbCrA 440 8');
INSERT INTO ENUM_DXGI_FORMAT VALUES(132,'DXGI_FORMAT_V408','YCbCrA 444 8');
INSERT INTO ENUM_DXGI_FORMAT VALUES(189,'DXGI_FORMAT_SAMPLER_FEEDBACK_MIN_MIP_OPAQUE','Sampler mip-map opaque');
INSERT INTO ENUM_DXGI_FORMAT VALUES(190,'DXGI_FORMAT_SAMPLER_FEEDBACK_MIP_REGION_USED_OPAQUE','Sampler mip-region opaque');
CREATE TABLE ENUM_NVDRIVER_EVENT_ID (
    -- NV-Driver event it labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NVDRIVER_EVENT_ID VALUES(1,'NV_WGF2UM_EVENT_LOAD_BALANCE_GPU','GPU load balance');
INSERT INTO ENUM_NVDRIVER_EVENT_ID VALUES(8,'NV_WGF2UM_EVENT_LOAD_BALANCE_CPU','CPU load balance');
INSERT INTO ENUM_NVDRIVER_EVENT_ID VALUES(21,'NV_WGF2UM_EVENT_LOAD_BALANCE_MASTER_GPU','GPU load balance master');
INSERT INTO ENUM_NVDRIVER_EVENT_ID VALUES(22,'NV_WGF2UM_EVENT_LOAD_BALANCE_MASTER_CPU','CPU load balance master');
CREATE TABLE ENUM_WDDM_PAGING_QUEUE_TYPE (
    -- WDDM paging queue type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_WDDM_PAGING_QUEUE_TYPE VALUES(0,'VIDMM_PAGING_QUEUE_TYPE_UMD','UMD');
INSERT INTO ENUM_WDDM_PAGING_QUEUE_TYPE VALUES(1,'VIDMM_PAGING_QUEUE_TYPE_DEFAULT','Default');
INSERT INTO ENUM_WDDM_PAGING_QUEUE_TYPE VALUES(2,'VIDMM_PAGING_QUEUE_TYPE_EVICT','Evict');
INSERT INTO ENUM_WDDM_PAGING_QUEUE_TYPE VALUES(3,'VIDMM_PAGING_QUEUE_TYPE_RECLAIM','Reclaim');
CREATE TABLE ENUM_WDDM_PACKET_TYPE (
    -- WDDM packet type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_WDDM_PACKET_TYPE VALUES(0,'DXGKETW_RENDER_COMMAND_BUFFER','Render');
INSERT INTO ENUM_WDDM_PACKET_TYPE VALUES(1,'DXGKETW_DEFERRED_COMMAND_BUFFER','Deferred');
INSERT INTO ENUM_WDDM_PACKET_TYPE VALUES(2,'DXGKETW_SYSTEM_COMMAND_BUFFER','System');
INSERT INTO ENUM_WDDM_PACKET_TYPE VALUES(3,'DXGKETW_MMIOFLIP_COMMAND_BUFFER','MemMap IO Flip');
INSERT INTO ENUM_WDDM_PACKET_TYPE VALUES(4,'DXGKETW_WAIT_COMMAND_BUFFER','Wait');
INSERT INTO ENUM_WDDM_PACKET_TYPE VALUES(5,'DXGKETW_SIGNAL_COMMAND_BUFFER','Signal');
INSERT INTO ENUM_WDDM_PACKET_TYPE VALUES(6,'DXGKETW_DEVICE_COMMAND_BUFFER','Device');
INSERT INTO ENUM_WDDM_PACKET_TYPE VALUES(7,'DXGKETW_SOFTWARE_COMMAND_BUFFER','Software');
CREATE TABLE ENUM_WDDM_ENGINE_TYPE (
    -- WDDM engine type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_WDDM_ENGINE_TYPE VALUES(0,'DXGK_ENGINE_TYPE_OTHER','Other');
INSERT INTO ENUM_WDDM_ENGINE_TYPE VALUES(1,'DXGK_ENGINE_TYPE_3D','3D');
INSERT INTO ENUM_WDDM_ENGINE_TYPE VALUES(2,'DXGK_ENGINE_TYPE_VIDEO_DECODE','Video decode');
INSERT INTO ENUM_WDDM_ENGINE_TYPE VALUES(3,'DXGK_ENGINE_TYPE_VIDEO_ENCODE','Video encode');
INSERT INTO ENUM_WDDM_ENGINE_TYPE VALUES(4,'DXGK_ENGINE_TYPE_VIDEO_PROCESSING','Video processing');
INSERT INTO ENUM_WDDM_ENGINE_TYPE VALUES(5,'DXGK_ENGINE_TYPE_SCENE_ASSEMBLY','Scene assembly');
INSERT INTO ENUM_WDDM_ENGINE_TYPE VALUES(6,'DXGK_ENGINE_TYPE_COPY','Copy');
INSERT INTO ENUM_WDDM_ENGINE_TYPE VALUES(7,'DXGK_ENGINE_TYPE_OVERLAY','Overlay');
INSERT INTO ENUM_WDDM_ENGINE_TYPE VALUES(8,'DXGK_ENGINE_TYPE_CRYPTO','Crypto');
CREATE TABLE ENUM_WDDM_INTERRUPT_TYPE (
    -- WDDM DMA interrupt type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(1,'DXGK_INTERRUPT_DMA_COMPLETED','DMA complete');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(2,'DXGK_INTERRUPT_DMA_PREEMPTED','DMA preempted');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(3,'DXGK_INTERRUPT_CRTC_VSYNC','Critical VSYNC');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(4,'DXGK_INTERRUPT_DMA_FAULTED','CMA faulted');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(5,'DXGK_INTERRUPT_DISPLAYONLY_VSYNC','Display-only VSYNC');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(6,'DXGK_INTERRUPT_DISPLAYONLY_PRESENT_PROGRESS','Display-only progress');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(7,'DXGK_INTERRUPT_CRTC_VSYNC_WITH_MULTIPLANE_OVERLAY','Critical VSYNC w/ overlay');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(8,'DXGK_INTERRUPT_MICACAST_CHUNK_PROCESSING_COMPLETE','Miracast chunk complete');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(9,'DXGK_INTERRUPT_DMA_PAGE_FAULTED','DMA page faulted');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(10,'DXGK_INTERRUPT_CRTC_VSYNC_WITH_MULTIPLANE_OVERLAY2','Critical VSYNC w/ overlay 2');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(11,'DXGK_INTERRUPT_MONITORED_FENCE_SIGNALED','Monitored fence');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(12,'DXGK_INTERRUPT_HWQUEUE_PAGE_FAULTED','HW queue page fault');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(13,'DXGK_INTERRUPT_HWCONTEXTLIST_SWITCH_COMPLETED','HW context switch');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(14,'DXGK_INTERRUPT_PERIODIC_MONITORED_FENCE_SIGNALED','Periodic fence');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(15,'DXGK_INTERRUPT_SCHEDULING_LOG_INTERRUPT','Scheduling log');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(16,'DXGK_INTERRUPT_GPU_ENGINE_TIMEOUT','GPU timeout');
INSERT INTO ENUM_WDDM_INTERRUPT_TYPE VALUES(17,'DXGK_INTERRUPT_SUSPEND_CONTEXT_COMPLETED','Suspend ctx complete');
CREATE TABLE ENUM_WDDM_VIDMM_OP_TYPE (
    -- WDDM VidMm operation type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(0,'None','None');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(101,'RestoreSegments','Restore segments');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(102,'PurgeSegments','Purge segements');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(103,'CleanupPrimary','Cleanup primary');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(104,'AllocatePagingBufferResources','Allocate paging buffer resources');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(105,'FreePagingBufferResources','Free paging buffer resources');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(106,'ReportVidMmState','Report VIDMM State');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(107,'RunApertureCoherencyTest','Run aperture coherency test');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(108,'RunUnmapToDummyPageTest','Run unmap to dummy page test');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(109,'DeferredCommand','Deferred command');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(110,'SuspendMemorySegmentAccess','Suspend mem seg access');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(111,'ResumeMemorySegmentAccess','Resume mem seg access');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(112,'EvictAndFlush','Evict and flush');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(113,'CommitVirtualAddressRange','Commit virt-addr range');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(114,'UncommitVirtualAddressRange','Uncommit virt-addrrange');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(115,'DestroyVirtualAddressAllocator','Destroy virt-addr allocator');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(116,'PageInDevice','Page in device');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(117,'MapContextAllocation','Map context allocation');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(118,'InitPagingProcessVaSpace','Init praging process VA space');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(200,'CloseAllocation','Close allocation');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(202,'ComplexLock','Complex lock');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(203,'PinAllocation','Pin allocation');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(204,'FlushPendingGpuAccess','Flish pending GPU access');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(205,'UnpinAllocation','Unpin allocation');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(206,'MakeResident','Make resident');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(207,'Evict','Evict');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(208,'LockInAperture','Lock in aperture');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(209,'InitContextAllocation','Init context allocation');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(210,'ReclaimAllocation','Reclaim allocation');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(211,'DiscardAllocation','Discard allocation');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(212,'SetAllocationPriority','Set allocation priority');
INSERT INTO ENUM_WDDM_VIDMM_OP_TYPE VALUES(1000,'EvictSystemMemoryOfferList','Evict sys-mem offer list');
CREATE TABLE ENUM_NET_LINK_TYPE (
    -- NIC link layer labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NET_LINK_TYPE VALUES(0,'Unknown','Unknown NIC');
INSERT INTO ENUM_NET_LINK_TYPE VALUES(1,'Ethernet','Ethernet NIC');
INSERT INTO ENUM_NET_LINK_TYPE VALUES(2,'InfiniBand','InfiniBand NIC');
CREATE TABLE ENUM_NET_DEVICE_ID (
    -- NIC PCIe device id labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4099,'CntX3','ConnectX-3');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4103,'CntX3Pro','ConnectX-3 Pro');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4113,'CntIB','Connect-IB');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4115,'CntX4','ConnectX-4');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4117,'CntX4Lx','ConnectX-4 Lx');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4119,'CntX5','ConnectX-5');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4121,'CntX5Ex','ConnectX-5 Ex');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4123,'CntX6','ConnectX-6');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4125,'CntX6Dx','ConnectX-6 Dx');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4127,'CntX6Lx','ConnectX-6 Lx');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4129,'CntX7','ConnectX-7');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(4131,'CntX8','ConnectX-8');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(21108,'InfiniBridge','InfiniBridge');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(23108,'InfiniHost','InfiniHost');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(24204,'InfiniHost3LxHca1','InfiniHost III Lx HCA 1');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(25204,'InfiniHost3LxHca2','InfiniHost III Lx HCA 2');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(25208,'InfiniHost3ExTavor','InfiniHost III Ex (Tavor compatibility mode)');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(25218,'InfiniHost3Ex','InfiniHost III Ex');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(25408,'CntXDual10Gb','ConnectX Dual Port 10Gb/s');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(25418,'CntXDual20Gb','ConnectX Dual Port 20Gb/s');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(25448,'CntXEn10Gb25Gt1','ConnectX EN 10GigE PCIe 2.0 2.5GT/s');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(25458,'CntXEn10Gb25Gt2','ConnectX EN 10GBASE-T PCIe 2.5 GT/s');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(26428,'CntXDual40Gb','ConnectX Dual Port 40Gb/s');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(26438,'CntXVpi','ConnectX VPI PCIe 2.0 5GT/s');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(26448,'CntXEn10Gb50Gt1','ConnectX EN 10GigE PCIe 2.0 5GT/s');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(26458,'CntXEn10Gb50Gt2','ConnectX EN 10GBASE-T PCIe Gen2 5.0 GT/s');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(26468,'CntXEn10Gb50GtVirt','ConnectX EN 10GigE PCIe 2.0 5GT/s Virtualization+');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(26478,'CntXEn40Gb50Gt','ConnectX EN 40GigE PCIe 2.0 5GT/s');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(26488,'CntXVpiVirt','ConnectX VPI PCIe 2.0 5GT/s - IB DDR / 10GigE Virtualization+');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41680,'BF1Crypto','BlueField SoC Crypto enabled');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41681,'BF1NoCrypto','BlueField SoC Crypto disabled');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41682,'BF1CntX5','BlueField integrated ConnectX-5 network controller');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41683,'BF1MultiVF','BlueField multicore SoC family VF');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41684,'BF2Crypto','BlueField-2 SoC Crypto enabled');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41685,'BF2NoCrypto','BlueField-2 SoC Crypto disabled');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41686,'BF2CntX6Dx','BlueField-2 integrated ConnectX-6 Dx network controller');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41687,'BF3LxCrypto','BlueField-3 Lx SoC Crypto enabled');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41688,'BF3LxNoCrypto','BlueField-3 Lx SoC Crypto disabled');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41689,'BF3LxCntX7Lx','BlueField-3 Lx integrated ConnectX-7 network controller');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41690,'BF3Crypto','BlueField-3 SoC Crypto enabled');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41691,'BF3NoCrypto','BlueField-3 SoC Crypto disabled');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41692,'BF3CntX7','BlueField-3 integrated ConnectX-7 network controller');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41693,'BF4Crypto','BlueField-4 SoC Crypto enabled');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41694,'BF4NoCrypto','BlueField-4 SoC Crypto disabled');
INSERT INTO ENUM_NET_DEVICE_ID VALUES(41695,'BF4Int','BlueField-4 integrated network controller');
CREATE TABLE ENUM_NET_VENDOR_ID (
    -- NIC PCIe vendor id labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NET_VENDOR_ID VALUES(5555,'NVIDIA','NVIDIA / Mellanox');
CREATE TABLE ENUM_ETW_MEMORY_TRANSFER_TYPE (
    -- memory transfer type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_ETW_MEMORY_TRANSFER_TYPE VALUES(0,'UnknownTransfer','Unknown Transfer');
INSERT INTO ENUM_ETW_MEMORY_TRANSFER_TYPE VALUES(1,'DeviceToSystem','Device To System Transfer');
INSERT INTO ENUM_ETW_MEMORY_TRANSFER_TYPE VALUES(2,'SystemToDevice','System To Device Transfer');
INSERT INTO ENUM_ETW_MEMORY_TRANSFER_TYPE VALUES(3,'AgpToDevice','AGP To Device Transfer');
INSERT INTO ENUM_ETW_MEMORY_TRANSFER_TYPE VALUES(4,'DeviceToAgp','Device To AGP Transfer');
INSERT INTO ENUM_ETW_MEMORY_TRANSFER_TYPE VALUES(5,'EvictToAlternateva','Evict To Alternate VA Transfer');
INSERT INTO ENUM_ETW_MEMORY_TRANSFER_TYPE VALUES(6,'RestoreFromAlternateva','Restore From Alternate VA Transfer');
INSERT INTO ENUM_ETW_MEMORY_TRANSFER_TYPE VALUES(7,'Discard','Discard');
CREATE TABLE ENUM_PMU_EVENT_SOURCE (
    -- PMU event source labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_PMU_EVENT_SOURCE VALUES(1,'ArmPmu','Arm PMU');
INSERT INTO ENUM_PMU_EVENT_SOURCE VALUES(2,'CarmelPmu','Carmel PMU');
INSERT INTO ENUM_PMU_EVENT_SOURCE VALUES(3,'T23XPmuScf','T23X PMU Scf');
INSERT INTO ENUM_PMU_EVENT_SOURCE VALUES(4,'T23XPmuDsu','T23X PMU Dsu');
CREATE TABLE ENUM_PMU_UNIT_TYPE (
    -- PMU unit type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_PMU_UNIT_TYPE VALUES(1,'PmuUnitCore','Pmu Unit Core');
INSERT INTO ENUM_PMU_UNIT_TYPE VALUES(2,'PmuUnitCpuCluster','Pmu Unit Cpu Cluster');
INSERT INTO ENUM_PMU_UNIT_TYPE VALUES(3,'PmuUnitScf','Pmu Unit Scf');
CREATE TABLE ENUM_VIDEO_ENGINE_TYPE (
    -- Video engine type id labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_VIDEO_ENGINE_TYPE VALUES(0,'NVDEC','NV Decode');
INSERT INTO ENUM_VIDEO_ENGINE_TYPE VALUES(1,'NVENC','NV Encode');
INSERT INTO ENUM_VIDEO_ENGINE_TYPE VALUES(2,'NVJPEG','NV JPEG');
INSERT INTO ENUM_VIDEO_ENGINE_TYPE VALUES(3,'OFA','OFA');
CREATE TABLE ENUM_VIDEO_ENGINE_CODEC (
    -- Video engine codec labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_VIDEO_ENGINE_CODEC VALUES(0,'MPEG2','MPEG-2');
INSERT INTO ENUM_VIDEO_ENGINE_CODEC VALUES(1,'VC1','VC-1');
INSERT INTO ENUM_VIDEO_ENGINE_CODEC VALUES(2,'H264','H.264');
INSERT INTO ENUM_VIDEO_ENGINE_CODEC VALUES(3,'MPEG4','MPEG-4');
INSERT INTO ENUM_VIDEO_ENGINE_CODEC VALUES(4,'VP8','VP8');
INSERT INTO ENUM_VIDEO_ENGINE_CODEC VALUES(5,'VP9','VP9');
INSERT INTO ENUM_VIDEO_ENGINE_CODEC VALUES(6,'HEVC','HEVC');
INSERT INTO ENUM_VIDEO_ENGINE_CODEC VALUES(7,'AV1','AV1');
CREATE TABLE ENUM_DIAGNOSTIC_SEVERITY_LEVEL (
    -- Diagnostic message severity level labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_DIAGNOSTIC_SEVERITY_LEVEL VALUES(0,'UnknownLevel','Unknown');
INSERT INTO ENUM_DIAGNOSTIC_SEVERITY_LEVEL VALUES(1,'Info','Info');
INSERT INTO ENUM_DIAGNOSTIC_SEVERITY_LEVEL VALUES(2,'Warning','Warning');
INSERT INTO ENUM_DIAGNOSTIC_SEVERITY_LEVEL VALUES(3,'Error','Error');
INSERT INTO ENUM_DIAGNOSTIC_SEVERITY_LEVEL VALUES(4,'Verbose','Verbose');
CREATE TABLE ENUM_DIAGNOSTIC_SOURCE_TYPE (
    -- Diagnostic message source type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_DIAGNOSTIC_SOURCE_TYPE VALUES(0,'UnknownSource','Unknown source');
INSERT INTO ENUM_DIAGNOSTIC_SOURCE_TYPE VALUES(1,'Injection','Injection');
INSERT INTO ENUM_DIAGNOSTIC_SOURCE_TYPE VALUES(2,'Daemon','Daemon');
INSERT INTO ENUM_DIAGNOSTIC_SOURCE_TYPE VALUES(3,'Analysis','Analysis');
CREATE TABLE ENUM_DIAGNOSTIC_TIMESTAMP_SOURCE (
    -- Diagnostic message timestamp source lables

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_DIAGNOSTIC_TIMESTAMP_SOURCE VALUES(0,'UnknownTimestamp','Unknown timestamp');
INSERT INTO ENUM_DIAGNOSTIC_TIMESTAMP_SOURCE VALUES(1,'TargetTimestamp','Target timestamp');
INSERT INTO ENUM_DIAGNOSTIC_TIMESTAMP_SOURCE VALUES(2,'HostTimestamp','Host timestamp');
CREATE TABLE ENUM_NET_IB_DEVICE_TYPE (
    -- network device types

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NET_IB_DEVICE_TYPE VALUES(1,'Endpoint','End Point');
INSERT INTO ENUM_NET_IB_DEVICE_TYPE VALUES(2,'IBSwitch','IB Switch');
CREATE TABLE ENUM_NET_IB_CONGESTION_EVENT_TYPE (
    -- IB Switch congestion event types

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO ENUM_NET_IB_CONGESTION_EVENT_TYPE VALUES(1,'EgressPortQueueSize','Egress Port Queue Size');
CREATE TABLE META_DATA_CAPTURE (
    -- information about nsys capture parameters

    name                        TEXT      NOT NULL,                    -- Name of meta-data record
    value                       TEXT                                   -- Value of meta-data record
);
CREATE TABLE META_DATA_EXPORT (
    -- information about nsys export process

    name                        TEXT      NOT NULL,                    -- Name of meta-data record
    value                       TEXT                                   -- Value of meta-data record
);
-- CUDA graph creation tables: not present in the 2025.1 sample export (it traced no graph creation);
-- DDL as the 3.x exporter writes it (same text in the 2025-2026 SQLite schema reference).
CREATE TABLE CUDA_GRAPH_NODE_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name
    graphNodeId                 INTEGER   NOT NULL,                    -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    originalGraphNodeId         INTEGER                                -- Reference to the original graph node ID, if cloned node.
);
CREATE TABLE CUDA_GRAPH_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name
    graphId                     INTEGER,                               -- Graph ID.
    originalGraphId             INTEGER,                               -- Reference to the original graph ID, if cloned.
    graphExecId                 INTEGER                                -- Executable graph ID.
);
