"""DepthToSpace (TensorFlow tf.nn.depth_to_space / ONNX DepthToSpace): moves blocks of depth into spatial blocks.
DCR: the channel index is (row offset, column offset, output channel); CRD: (output channel, row offset, column
offset)."""


def depth_to_space(x, *, block_size, mode="DCR", data_format="NHWC"):
    bs = int(block_size)
    if data_format == "NHWC":
        n, h, w, c = x.shape
        oc = c // (bs * bs)
        if mode == "DCR":
            t = x.reshape(n, h, w, bs, bs, oc).transpose(0, 1, 3, 2, 4, 5)
        else:
            t = x.reshape(n, h, w, oc, bs, bs).transpose(0, 1, 4, 2, 5, 3)
        return t.reshape(n, h * bs, w * bs, oc)
    n, c, h, w = x.shape
    oc = c // (bs * bs)
    if mode == "DCR":
        t = x.reshape(n, bs, bs, oc, h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = x.reshape(n, oc, bs, bs, h, w).transpose(0, 1, 4, 2, 5, 3)
    return t.reshape(n, oc, h * bs, w * bs)
