export { createLayersService, type LayersService, type LayerPlacement } from './layers.service.js';
export { layersRoutes, type LayersRouteDeps } from './layers.routes.js';
export { LAYER_BUCKETS, type Layer, type LayerAllocation } from './layers.model.js';
export { layerChangeKinds } from './layer-change-kinds.js';
