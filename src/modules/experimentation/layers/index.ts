export { createLayersService, type LayersService } from './layers.service.js';
export { layersRoutes } from './layers.routes.js';
export { layerChangeKinds } from './layer-change-kinds.js';
