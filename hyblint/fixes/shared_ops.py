"""Operator names that exist in both `mxnet.ndarray` and `mxnet.symbol` (MXNet 1.9.1).

Only these can move from `nd.op(...)` to `F.op(...)`: `F` is one of the two namespaces at run time.
Listed from the two namespaces of MXNet 1.9.1 (generated operators, plus the Python-level
`zeros`/`ones`/`full`/`arange`/`eye`/`linspace`/`maximum`/`minimum`/`power` whose signatures agree);
left out: `load`/`save` (different meaning), `histogram`, `split_v2`, sparse storage ops.
"""

SHARED_OPS = frozenset("""
Activation BatchNorm BatchNorm_v1 BilinearSampler BlockGrad CTCLoss Cast Concat Convolution
Convolution_v1 Correlation Crop Custom Deconvolution Dropout ElementWiseSum Embedding Flatten
FullyConnected GridGenerator GroupNorm IdentityAttachKLSparseReg InstanceNorm L2Normalization
LRN LayerNorm LeakyReLU LinearRegressionOutput LogisticRegressionOutput MAERegressionOutput
MakeLoss Pad Pooling Pooling_v1 RNN ROIPooling Reshape SVMOutput SequenceLast SequenceMask
SequenceReverse SliceChannel Softmax SoftmaxActivation SoftmaxOutput SpatialTransformer
SwapAxis UpSampling abs adam_update add_n all_finite amp_cast amp_multicast arange arccos
arccosh arcsin arcsinh arctan arctanh argmax argmax_channel argmin argsort batch_dot batch_take
broadcast_add broadcast_axes broadcast_axis broadcast_div broadcast_equal broadcast_greater
broadcast_greater_equal broadcast_hypot broadcast_lesser broadcast_lesser_equal broadcast_like
broadcast_logical_and broadcast_logical_or broadcast_logical_xor broadcast_maximum
broadcast_minimum broadcast_minus broadcast_mod broadcast_mul broadcast_not_equal
broadcast_plus broadcast_power broadcast_sub broadcast_to cast cast_storage cbrt ceil
choose_element_0index clip col2im concat contrib.AdaptiveAvgPooling2D contrib.BatchNormWithReLU
contrib.BilinearResize2D contrib.CTCLoss contrib.DeformableConvolution
contrib.DeformablePSROIPooling contrib.ModulatedDeformableConvolution contrib.MultiBoxDetection
contrib.MultiBoxPrior contrib.MultiBoxTarget contrib.MultiProposal contrib.PSROIPooling
contrib.Proposal contrib.ROIAlign contrib.RROIAlign contrib.SparseEmbedding
contrib.SyncBatchNorm contrib.adamw_update contrib.allclose contrib.arange_like
contrib.bipartite_matching contrib.boolean_mask contrib.box_decode contrib.box_encode
contrib.box_iou contrib.box_nms contrib.box_non_maximum_suppression contrib.calibrate_entropy
contrib.cond contrib.count_sketch contrib.ctc_loss contrib.dequantize contrib.dgl_adjacency
contrib.dgl_csr_neighbor_non_uniform_sample contrib.dgl_csr_neighbor_uniform_sample
contrib.dgl_graph_compact contrib.dgl_subgraph contrib.div_sqrt_dim contrib.edge_id contrib.fft
contrib.foreach contrib.getnnz contrib.gradientmultiplier contrib.group_adagrad_update
contrib.hawkesll contrib.ifft contrib.index_array contrib.index_copy
contrib.interleaved_matmul_encdec_qk contrib.interleaved_matmul_encdec_valatt
contrib.interleaved_matmul_selfatt_qk contrib.interleaved_matmul_selfatt_valatt
contrib.mp_adamw_update contrib.quadratic contrib.quantize contrib.quantize_asym
contrib.quantize_v2 contrib.quantized_act contrib.quantized_batch_norm contrib.quantized_concat
contrib.quantized_conv contrib.quantized_elemwise_add contrib.quantized_elemwise_mul
contrib.quantized_embedding contrib.quantized_flatten contrib.quantized_fully_connected
contrib.quantized_pooling contrib.quantized_rnn contrib.rand_zipfian contrib.requantize
contrib.round_ste contrib.sign_ste contrib.uniform contrib.while_loop cos cosh crop ctc_loss
cumsum degrees depth_to_space diag dot elemwise_add elemwise_div elemwise_mul elemwise_sub erf
erfinv exp expand_dims expm1 eye fill_element_0index fix flatten flip floor ftml_update
ftrl_update full gamma gammaln gather_nd hard_sigmoid identity im2col image.adjust_lighting
image.crop image.flip_left_right image.flip_top_bottom image.normalize image.random_brightness
image.random_color_jitter image.random_contrast image.random_flip_left_right
image.random_flip_top_bottom image.random_hue image.random_lighting image.random_saturation
image.resize image.to_tensor khatri_rao lamb_update_phase1 lamb_update_phase2 linalg.det
linalg.extractdiag linalg.extracttrian linalg.gelqf linalg.gemm linalg.gemm2 linalg.inverse
linalg.makediag linalg.maketrian linalg.potrf linalg.potri linalg.slogdet linalg.sumlogdiag
linalg.syevd linalg.syrk linalg.trmm linalg.trsm linalg_det linalg_extractdiag
linalg_extracttrian linalg_gelqf linalg_gemm linalg_gemm2 linalg_inverse linalg_makediag
linalg_maketrian linalg_potrf linalg_potri linalg_slogdet linalg_sumlogdiag linalg_syrk
linalg_trmm linalg_trsm linspace log log10 log1p log2 log_softmax logical_not make_loss max
max_axis maximum mean min min_axis minimum moments mp_lamb_update_phase1 mp_lamb_update_phase2
mp_nag_mom_update mp_sgd_mom_update mp_sgd_update multi_all_finite multi_lars
multi_mp_sgd_mom_update multi_mp_sgd_update multi_sgd_mom_update multi_sgd_update multi_sum_sq
nag_mom_update nanprod nansum negative norm normal one_hot ones ones_like pad pick power
preloaded_multi_mp_sgd_mom_update preloaded_multi_mp_sgd_update preloaded_multi_sgd_mom_update
preloaded_multi_sgd_update prod radians random.exponential random.exponential_like random.gamma
random.gamma_like random.generalized_negative_binomial
random.generalized_negative_binomial_like random.multinomial random.negative_binomial
random.negative_binomial_like random.normal random.normal_like random.poisson
random.poisson_like random.randint random.randn random.shuffle random.uniform
random.uniform_like random_exponential random_gamma random_generalized_negative_binomial
random_negative_binomial random_normal random_pdf_dirichlet random_pdf_exponential
random_pdf_gamma random_pdf_generalized_negative_binomial random_pdf_negative_binomial
random_pdf_normal random_pdf_poisson random_pdf_uniform random_poisson random_randint
random_uniform ravel_multi_index rcbrt reciprocal relu repeat reset_arrays reshape reshape_like
reverse rint rmsprop_update rmspropalex_update round rsqrt sample_exponential sample_gamma
sample_generalized_negative_binomial sample_multinomial sample_negative_binomial sample_normal
sample_poisson sample_uniform scatter_nd sgd_mom_update sgd_update shape_array shuffle sigmoid
sign signsgd_update signum_update sin sinh size_array slice slice_axis slice_like smooth_l1
softmax softmax_cross_entropy softmin softsign sort space_to_depth split sqrt square squeeze
stack stop_gradient sum sum_axis swapaxes take tan tanh tile topk transpose trunc uniform
unravel_index where zeros zeros_like
""".split())
