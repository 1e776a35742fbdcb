//! Entry points the library exports but does not support: each returns
//! `CUDA_ERROR_NOT_SUPPORTED` and names itself on stderr (at `PTXC_CUDA_LOG` level 1), so a
//! program that resolves them loads, and one that calls them learns why it fails. The list is
//! every driver entry point `cuda-bindings` 13.5 resolves, and those Triton's launcher and
//! numba-cuda look up, less the implemented ones.

use crate::log;
use crate::types::CUresult;

/// Reports a call of an unsupported entry point.
pub fn unsupported(name: &str) -> CUresult {
    log::warn(format!("{name} is not supported (CUDA_ERROR_NOT_SUPPORTED)"));
    CUresult::CUDA_ERROR_NOT_SUPPORTED
}

/// Defines the not-supported entry points and the table of their addresses.
macro_rules! unsupported_entry_points {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($name), "`: not supported.")]
            #[unsafe(no_mangle)]
            pub extern "C" fn $name() -> CUresult {
                unsupported(stringify!($name))
            }
        )*

        /// The not-supported entry points by name.
        pub fn entries() -> Vec<(&'static str, usize)> {
            vec![$((stringify!($name), $name as *const () as usize)),*]
        }
    };
}

unsupported_entry_points! {
    cuArray3DCreate_v2, cuArray3DGetDescriptor_v2, cuArrayCreate_v2, cuArrayDestroy,
    cuArrayGetDescriptor_v2, cuArrayGetMemoryRequirements, cuArrayGetPlane,
    cuArrayGetSparseProperties, cuCheckpointOperationComplete, cuCheckpointProcessCheckpoint,
    cuCheckpointProcessGetRestoreThreadId, cuCheckpointProcessGetState, cuCheckpointProcessLock,
    cuCheckpointProcessRestore, cuCheckpointProcessUnlock, cuCoredumpDeregisterCompleteCallback,
    cuCoredumpDeregisterStartCallback, cuCoredumpGetAttribute, cuCoredumpGetAttributeGlobal,
    cuCoredumpRegisterCompleteCallback, cuCoredumpRegisterStartCallback, cuCoredumpSetAttribute,
    cuCoredumpSetAttributeGlobal, cuCtxAttach, cuCtxDetach, cuCtxDisablePeerAccess,
    cuCtxEnablePeerAccess, cuCtxFromGreenCtx, cuCtxGetDevResource, cuCtxGetExecAffinity,
    cuCtxRecordEvent, cuCtxWaitEvent, cuDestroyExternalMemory, cuDestroyExternalSemaphore,
    cuDevResourceGenerateDesc, cuDevSmResourceSplit, cuDevSmResourceSplitByCount,
    cuDeviceGetCliqueCount, cuDeviceGetCliqueInfo, cuDeviceGetDefaultMemPool,
    cuDeviceGetDevResource, cuDeviceGetExecAffinitySupport, cuDeviceGetFabricClusterUuid,
    cuDeviceGetGraphMemAttribute, cuDeviceGetHostAtomicCapabilities, cuDeviceGetLuid,
    cuDeviceGetMemPool, cuDeviceGetNvSciSyncAttributes, cuDeviceGetP2PAtomicCapabilities,
    cuDeviceGetP2PAttribute, cuDeviceGetTexture1DLinearMaxWidth, cuDeviceGraphMemTrim,
    cuDeviceRegisterAsyncNotification, cuDeviceSetGraphMemAttribute, cuDeviceSetMemPool,
    cuDeviceUnregisterAsyncNotification, cuEGLStreamConsumerAcquireFrame,
    cuEGLStreamConsumerConnect, cuEGLStreamConsumerConnectWithFlags, cuEGLStreamConsumerDisconnect,
    cuEGLStreamConsumerReleaseFrame, cuEGLStreamProducerConnect, cuEGLStreamProducerDisconnect,
    cuEGLStreamProducerPresentFrame, cuEGLStreamProducerReturnFrame, cuEventCreateFromEGLSync,
    cuExternalMemoryGetMappedBuffer, cuExternalMemoryGetMappedMipmappedArray, cuFabricCpyBatchAsync,
    cuFlushGPUDirectRDMAWrites, cuFuncGetParamCount, cuFuncSetBlockShape, cuFuncSetSharedSize,
    cuGLCtxCreate_v2, cuGLGetDevices_v2, cuGLInit, cuGLMapBufferObjectAsync_v2,
    cuGLMapBufferObject_v2, cuGLRegisterBufferObject, cuGLSetBufferObjectMapFlags,
    cuGLUnmapBufferObject, cuGLUnmapBufferObjectAsync, cuGLUnregisterBufferObject, cuGetExportTable,
    cuGraphAddBatchMemOpNode, cuGraphAddChildGraphNode, cuGraphAddDependencies_v2,
    cuGraphAddEmptyNode, cuGraphAddEventRecordNode, cuGraphAddEventWaitNode,
    cuGraphAddExternalSemaphoresSignalNode, cuGraphAddExternalSemaphoresWaitNode,
    cuGraphAddHostNode, cuGraphAddKernelNode_v2, cuGraphAddMemAllocNode, cuGraphAddMemFreeNode,
    cuGraphAddMemcpyNode, cuGraphAddMemsetNode, cuGraphAddNode_v2, cuGraphAddNode_v3,
    cuGraphBatchMemOpNodeGetParams, cuGraphBatchMemOpNodeSetParams, cuGraphChildGraphNodeGetGraph,
    cuGraphClone, cuGraphConditionalHandleCreate, cuGraphCreate, cuGraphDebugDotPrint,
    cuGraphDestroy, cuGraphDestroyNode, cuGraphEventRecordNodeGetEvent,
    cuGraphEventRecordNodeSetEvent, cuGraphEventWaitNodeGetEvent, cuGraphEventWaitNodeSetEvent,
    cuGraphExecBatchMemOpNodeSetParams, cuGraphExecChildGraphNodeSetParams, cuGraphExecDestroy,
    cuGraphExecEventRecordNodeSetEvent, cuGraphExecEventWaitNodeSetEvent,
    cuGraphExecExternalSemaphoresSignalNodeSetParams,
    cuGraphExecExternalSemaphoresWaitNodeSetParams, cuGraphExecGetFlags, cuGraphExecGetId,
    cuGraphExecHostNodeSetParams, cuGraphExecKernelNodeSetParams_v2, cuGraphExecMemcpyNodeSetParams,
    cuGraphExecMemsetNodeSetParams, cuGraphExecNodeSetParams, cuGraphExecUpdate_v2,
    cuGraphExternalSemaphoresSignalNodeGetParams, cuGraphExternalSemaphoresSignalNodeSetParams,
    cuGraphExternalSemaphoresWaitNodeGetParams, cuGraphExternalSemaphoresWaitNodeSetParams,
    cuGraphGetEdges_v2, cuGraphGetId, cuGraphGetNodes, cuGraphGetRootNodes,
    cuGraphHostNodeGetParams, cuGraphHostNodeSetParams, cuGraphInstantiateWithFlags,
    cuGraphInstantiateWithParams, cuGraphKernelNodeCopyAttributes, cuGraphKernelNodeGetAttribute,
    cuGraphKernelNodeGetParams_v2, cuGraphKernelNodeSetAttribute, cuGraphKernelNodeSetParams_v2,
    cuGraphLaunch, cuGraphMemAllocNodeGetParams, cuGraphMemFreeNodeGetParams,
    cuGraphMemcpyNodeGetParams, cuGraphMemcpyNodeSetParams, cuGraphMemsetNodeGetParams,
    cuGraphMemsetNodeSetParams, cuGraphNodeFindInClone, cuGraphNodeGetContainingGraph,
    cuGraphNodeGetDependencies_v2, cuGraphNodeGetDependentNodes_v2, cuGraphNodeGetEnabled,
    cuGraphNodeGetLocalId, cuGraphNodeGetParams, cuGraphNodeGetToolsId, cuGraphNodeGetType,
    cuGraphNodeSetEnabled, cuGraphNodeSetParams, cuGraphNodeSetParams_v2, cuGraphReleaseUserObject,
    cuGraphRemoveDependencies_v2, cuGraphRetainUserObject, cuGraphUpload,
    cuGraphicsEGLRegisterImage, cuGraphicsGLRegisterBuffer, cuGraphicsGLRegisterImage,
    cuGraphicsMapResources, cuGraphicsResourceGetMappedEglFrame,
    cuGraphicsResourceGetMappedMipmappedArray, cuGraphicsResourceGetMappedPointer_v2,
    cuGraphicsResourceSetMapFlags_v2, cuGraphicsSubResourceGetMappedArray, cuGraphicsUnmapResources,
    cuGraphicsUnregisterResource, cuGraphicsVDPAURegisterOutputSurface,
    cuGraphicsVDPAURegisterVideoSurface, cuGreenCtxCreate, cuGreenCtxDestroy,
    cuGreenCtxGetDevResource, cuGreenCtxGetId, cuGreenCtxRecordEvent, cuGreenCtxStreamCreate,
    cuGreenCtxWaitEvent, cuImportExternalMemory, cuImportExternalSemaphore, cuIpcCloseMemHandle,
    cuIpcGetEventHandle, cuIpcGetMemHandle, cuIpcOpenEventHandle, cuIpcOpenMemHandle_v2,
    cuKernelGetParamCount, cuLaunch, cuLaunchCooperativeKernel,
    cuLaunchCooperativeKernelMultiDevice, cuLaunchGrid, cuLaunchGridAsync, cuLaunchHostFunc_v2,
    cuLibraryGetManaged, cuLibraryGetUnifiedFunction, cuLogicalEndpointAddDevice,
    cuLogicalEndpointBindAddr, cuLogicalEndpointBindMem, cuLogicalEndpointCreate,
    cuLogicalEndpointDestroy, cuLogicalEndpointExport, cuLogicalEndpointGetLimits,
    cuLogicalEndpointIdRelease, cuLogicalEndpointIdReserve, cuLogicalEndpointImport,
    cuLogicalEndpointQuery, cuLogicalEndpointUnbind, cuLogsCurrent, cuLogsDumpToFile,
    cuLogsDumpToMemory, cuLogsRegisterCallback, cuLogsUnregisterCallback, cuMemAddressFree,
    cuMemAddressReserve, cuMemAdvise_v2, cuMemAllocFromPoolAsync, cuMemAllocManaged,
    cuMemBatchDecompressAsync, cuMemCreate, cuMemDiscardAndPrefetchBatchAsync,
    cuMemDiscardBatchAsync, cuMemExportToShareableHandle, cuMemGetAccess,
    cuMemGetAllocationGranularity, cuMemGetAllocationPropertiesFromHandle, cuMemGetDefaultMemPool,
    cuMemGetHandleForAddressRange, cuMemHostGetDevicePointer_v2, cuMemGetLocationInfo, cuMemGetMemPool,
    cuMemImportFromShareableHandle, cuMemMap, cuMemMapArrayAsync, cuMemPoolCreate, cuMemPoolDestroy,
    cuMemPoolExportPointer, cuMemPoolExportToShareableHandle, cuMemPoolGetAccess,
    cuMemPoolGetAttribute, cuMemPoolImportFromShareableHandle, cuMemPoolImportPointer,
    cuMemPoolSetAccess, cuMemPoolSetAttribute, cuMemPoolTrimTo, cuMemPrefetchAsync_v2,
    cuMemPrefetchBatchAsync, cuMemRangeGetAttribute, cuMemRangeGetAttributes, cuMemRelease,
    cuMemRetainAllocationHandle, cuMemSetAccess, cuMemSetMemPool, cuMemUnmap, cuMemcpy3DAsync_v2,
    cuMemcpy3DBatchAsync_v2, cuMemcpy3DPeer, cuMemcpy3DPeerAsync, cuMemcpy3DWithAttributesAsync,
    cuMemcpy3D_v2, cuMemcpyAtoA_v2, cuMemcpyAtoD_v2, cuMemcpyAtoHAsync_v2, cuMemcpyAtoH_v2,
    cuMemcpyBatchAsync_v2, cuMemcpyDtoA_v2, cuMemcpyHtoAAsync_v2, cuMemcpyHtoA_v2,
    cuMemcpyWithAttributesAsync, cuMipmappedArrayCreate, cuMipmappedArrayDestroy,
    cuMipmappedArrayGetLevel, cuMipmappedArrayGetMemoryRequirements,
    cuMipmappedArrayGetSparseProperties, cuModuleGetSurfRef, cuModuleGetTexRef,
    cuMulticastAddDevice, cuMulticastBindAddr, cuMulticastBindAddr_v2, cuMulticastBindMem,
    cuMulticastBindMem_v2, cuMulticastCreate, cuMulticastGetGranularity, cuMulticastUnbind,
    cuOccupancyMaxActiveClusters, cuOccupancyMaxPotentialClusterSize, cuParamSetSize,
    cuParamSetTexRef, cuParamSetf, cuParamSeti, cuParamSetv, cuPointerSetAttribute,
    cuProfilerInitialize, cuSignalExternalSemaphoresAsync, cuStreamAttachMemAsync,
    cuStreamBatchMemOp_v2, cuStreamBeginCaptureToCig, cuStreamBeginCaptureToGraph,
    cuStreamBeginCapture_v2, cuStreamBeginRecaptureToGraph, cuStreamCopyAttributes,
    cuStreamEndCapture, cuStreamEndCaptureToCig, cuStreamGetAttribute, cuStreamGetCaptureInfo_v2,
    cuStreamGetCaptureInfo_v3, cuStreamGetDevResource, cuStreamGetGreenCtx, cuStreamSetAttribute,
    cuStreamUpdateCaptureDependencies_v2, cuStreamWaitValue32_v2, cuStreamWaitValue64_v2,
    cuStreamWriteValue32_v2, cuStreamWriteValue64_v2, cuSurfObjectCreate, cuSurfObjectDestroy,
    cuSurfObjectGetResourceDesc, cuSurfRefGetArray, cuSurfRefSetArray, cuTensorMapEncodeIm2col,
    cuTensorMapEncodeIm2colWide, cuTensorMapEncodeTiled, cuTensorMapReplaceAddress,
    cuTensorMapSetAllocationClass, cuTexObjectCreate, cuTexObjectDestroy,
    cuTexObjectGetResourceDesc, cuTexObjectGetResourceViewDesc, cuTexObjectGetTextureDesc,
    cuTexRefCreate, cuTexRefDestroy, cuTexRefGetAddressMode, cuTexRefGetAddress_v2,
    cuTexRefGetArray, cuTexRefGetBorderColor, cuTexRefGetFilterMode, cuTexRefGetFlags,
    cuTexRefGetFormat, cuTexRefGetMaxAnisotropy, cuTexRefGetMipmapFilterMode,
    cuTexRefGetMipmapLevelBias, cuTexRefGetMipmapLevelClamp, cuTexRefGetMipmappedArray,
    cuTexRefSetAddress2D_v3, cuTexRefSetAddressMode, cuTexRefSetAddress_v2, cuTexRefSetArray,
    cuTexRefSetBorderColor, cuTexRefSetFilterMode, cuTexRefSetFlags, cuTexRefSetFormat,
    cuTexRefSetMaxAnisotropy, cuTexRefSetMipmapFilterMode, cuTexRefSetMipmapLevelBias,
    cuTexRefSetMipmapLevelClamp, cuTexRefSetMipmappedArray, cuThreadExchangeStreamCaptureMode,
    cuUserObjectCreate, cuUserObjectRelease, cuUserObjectRetain, cuVDPAUCtxCreate_v2,
    cuVDPAUGetDevice, cuWaitExternalSemaphoresAsync,
}
