// The kernel geometry of a convolution as override constants, fixed when the graph is built and equal to the
// uniform's kh .. dw (conv.cpp sets both): loops over the kernel get constant bounds and index arithmetic divides
// by constants (a multiply and a shift; CPU adapters emulate a vector integer division by a uniform lane by
// lane). CONV_POINTWISE: a 1x1 kernel with stride 1 and no padding (output pixel = input pixel).
override CONV_KH : u32;
override CONV_KW : u32;
override CONV_SH : u32;
override CONV_SW : u32;
override CONV_PH : u32;
override CONV_PW : u32;
override CONV_DH : u32;
override CONV_DW : u32;
override CONV_POINTWISE : bool = CONV_KH == 1u && CONV_KW == 1u && CONV_SH == 1u && CONV_SW == 1u && CONV_PH == 0u &&
                                 CONV_PW == 0u;
