import numpy as np


def _corners(box, center):
    if center:  # [x_center, y_center, width, height]
        xc, yc, w, h = box
        return yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2
    y1, x1, y2, x2 = box  # any diagonal pair of corners
    return min(y1, y2), min(x1, x2), max(y1, y2), max(x1, x2)


def _iou(a, b):
    ih = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iw = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ih * iw
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def non_max_suppression(boxes, scores, max_output_boxes_per_class, iou_threshold, score_threshold, cneter_point_box=0):
    """ONNX NonMaxSuppression: per batch and class, greedily take the highest-scoring box whose score is above
    score_threshold and whose IoU with every box already taken is at most iou_threshold, up to
    max_output_boxes_per_class boxes. Output: int32 [num_selected, 3] rows (batch, class, box), in batch, class,
    then selection order."""
    limit = int(np.asarray(max_output_boxes_per_class).reshape(-1)[0])
    iou_thr = float(np.asarray(iou_threshold).reshape(-1)[0])
    score_thr = float(np.asarray(score_threshold).reshape(-1)[0])
    rows = []
    for b in range(scores.shape[0]):
        corners = [_corners([float(v) for v in boxes[b, i]], cneter_point_box == 1) for i in range(boxes.shape[1])]
        for c in range(scores.shape[1]):
            s = scores[b, c].astype(np.float64)
            order = [i for i in sorted(range(len(s)), key=lambda i: (-s[i], i)) if s[i] > score_thr]
            taken = []
            for i in order:
                if len(taken) >= limit:
                    break
                if all(_iou(corners[i], corners[j]) <= iou_thr for j in taken):
                    taken.append(i)
            rows += [[b, c, i] for i in taken]
    return np.array(rows, dtype=np.int32).reshape(-1, 3)
